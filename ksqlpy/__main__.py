def main() -> None:
    print("ksqlpy")
