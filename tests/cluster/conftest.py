import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from kafka_broker import bootstrap, kafka_broker  # noqa: E402, F401 - fixtures, registered by import
