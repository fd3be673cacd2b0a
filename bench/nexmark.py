"""A deterministic Nexmark event generator (Person / Auction / Bid), after nexmark-flink's generator.

Why our own: the benchmark must run from a fresh clone with no JVM, and every engine in a run must read
byte-identical topics. The model follows nexmark-flink's ``NexmarkGenerator`` defaults: of every 50
events 1 is a Person, 3 are Auctions, 46 are Bids (2/6/92 %); event time advances at the first event
rate (10,000 events/s, so 1M events span 100 s of event time); half the bids go to the current "hot"
auction and three quarters come from hot bidders; records are padded with an ``extra`` string to the
average sizes (Person ~200 B, Auction ~500 B, Bid ~100 B). One seeded ``random.Random`` drives it all.

Topics are keyed by their entity id as a KAFKA BIGINT (8 bytes big-endian): bids by ``auction``,
auctions by ``id``, persons by ``id``. Values are JSON without the key column (ksqlDB's layout). So a
per-auction aggregation needs no repartition in any engine; a per-bidder one does in all of them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

PERSON_PROPORTION, AUCTION_PROPORTION, BID_PROPORTION = 1, 3, 46
TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION
FIRST_EVENT_RATE = 10_000  # events per second of event time
BASE_TIME_MS = 1_700_000_000_000  # a fixed epoch so runs are identical
FIRST_PERSON_ID, FIRST_AUCTION_ID, FIRST_CATEGORY_ID = 1000, 1000, 10
HOT_AUCTION_RATIO, HOT_BIDDER_RATIO, HOT_SELLER_RATIO = 2, 4, 4  # 1 in N events is NOT hot
HOT_BATCH = 100  # a hot id is the first id of the latest batch of 100
NUM_IN_FLIGHT_AUCTIONS, NUM_ACTIVE_PEOPLE = 100, 1000
CHANNELS = ("Apple", "Google", "Facebook", "Baidu")
US_STATES = ("AZ", "CA", "ID", "OR", "WA", "WY")
US_CITIES = ("Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle",
             "Kent", "Cheyenne")
FIRST_NAMES = ("Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter")
LAST_NAMES = ("Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris")
AVG_SIZE = {"person": 200, "auction": 500, "bid": 100}  # nexmark-flink's averages
EXTRA_MAX = {"person": 60, "auction": 420, "bid": 8}  # padding that brings our JSON near them
_POOL = 4096  # distinct random strings per kind: generation stays cheap and deterministic


def key_bytes(v: int) -> bytes:
    """A KAFKA-format BIGINT key."""
    return v.to_bytes(8, "big", signed=True)


@dataclass
class Topics:
    """Generated records per topic: parallel lists of key bytes, value bytes and timestamps."""

    keys: dict[str, list[bytes]] = field(default_factory=lambda: {"person": [], "auction": [], "bid": []})
    values: dict[str, list[bytes]] = field(default_factory=lambda: {"person": [], "auction": [], "bid": []})
    timestamps: dict[str, list[int]] = field(default_factory=lambda: {"person": [], "auction": [], "bid": []})

    @property
    def events(self) -> int:
        return sum(len(v) for v in self.values.values())

    def bytes(self, topic: str) -> int:
        return sum(map(len, self.values[topic])) + 8 * len(self.values[topic])


class NexmarkGenerator:
    """Yields ``(topic, key, value, timestamp_ms)`` for events 0..n-1; the same seed gives the same bytes."""

    def __init__(self, events: int, seed: int = 42) -> None:
        self.events = events
        self.rnd = random.Random(seed)
        r = self.rnd
        letters = "abcdefghijklmnopqrstuvwxyz"

        def word(lo: int, hi: int) -> str:
            return "".join(r.choices(letters, k=r.randint(lo, hi)))

        self._words = [word(3, 8) for _ in range(_POOL)]
        self._urls = [f"https://www.nexmark.com/{word(5, 5)}/{word(5, 5)}/{word(5, 5)}/item.htm?query=1"
                      for _ in range(_POOL)]
        self._extra = {k: [word(0, v) for _ in range(_POOL)] for k, v in EXTRA_MAX.items()}

    # ids, as nexmark-flink derives them from the event number
    @staticmethod
    def _last_auction(n: int) -> int:
        epoch, offset = divmod(n, TOTAL_PROPORTION)
        if offset < PERSON_PROPORTION:
            offset = PERSON_PROPORTION - 1  # the previous epoch's last auction
            epoch -= 1
        elif offset >= PERSON_PROPORTION + AUCTION_PROPORTION:
            offset = PERSON_PROPORTION + AUCTION_PROPORTION - 1
        return max(0, epoch * AUCTION_PROPORTION + offset - PERSON_PROPORTION)

    @staticmethod
    def _last_person(n: int) -> int:
        epoch, offset = divmod(n, TOTAL_PROPORTION)
        return epoch * PERSON_PROPORTION + min(offset, PERSON_PROPORTION - 1)

    def _next_auction(self, n: int) -> int:
        last = self._last_auction(n)
        lo = max(0, last - NUM_IN_FLIGHT_AUCTIONS)
        return lo + self._rint(last - lo + 2)

    def _next_person(self, n: int) -> int:
        last = self._last_person(n)
        return last - self._rint(min(last, NUM_ACTIVE_PEOPLE) + 1)

    def _price(self) -> int:
        return round(10.0 ** (self.rnd.random() * 6.0) * 100.0)

    def _rint(self, k: int) -> int:
        return int(self.rnd.random() * k)

    def __iter__(self) -> Iterator[tuple[str, bytes, bytes, int]]:
        rand = self.rnd.random

        def rint(k: int) -> int:
            return int(rand() * k)

        dumps = orjson.dumps
        words, urls = self._words, self._urls
        ex_p, ex_a, ex_b = self._extra["person"], self._extra["auction"], self._extra["bid"]
        for n in range(self.events):
            ts = BASE_TIME_MS + n * 1000 // FIRST_EVENT_RATE
            kind = n % TOTAL_PROPORTION
            if kind < PERSON_PROPORTION:
                pid = FIRST_PERSON_ID + self._last_person(n)
                value = {
                    "name": f"{FIRST_NAMES[rint(len(FIRST_NAMES))]} {LAST_NAMES[rint(len(LAST_NAMES))]}",
                    "email_address": f"{words[rint(_POOL)]}@{words[rint(_POOL)]}.com",
                    "credit_card": f"{rint(10000):04d} {rint(10000):04d} {rint(10000):04d} {rint(10000):04d}",
                    "city": US_CITIES[rint(len(US_CITIES))], "state": US_STATES[rint(len(US_STATES))],
                    "date_time": ts, "extra": ex_p[rint(_POOL)],
                }
                yield "person", key_bytes(pid), dumps(value), ts
            elif kind < PERSON_PROPORTION + AUCTION_PROPORTION:
                aid = FIRST_AUCTION_ID + self._last_auction(n)
                if rint(HOT_SELLER_RATIO) > 0:
                    seller = (self._last_person(n) // HOT_BATCH) * HOT_BATCH
                else:
                    seller = self._next_person(n)
                initial = self._price()
                value = {
                    "item_name": words[rint(_POOL)], "description": words[rint(_POOL)] + " " + words[rint(_POOL)],
                    "initial_bid": initial, "reserve": initial + self._price(),
                    "date_time": ts, "expires": ts + 10_000 + rint(20_000),
                    "seller": FIRST_PERSON_ID + seller, "category": FIRST_CATEGORY_ID + rint(5),
                    "extra": ex_a[rint(_POOL)],
                }
                yield "auction", key_bytes(aid), dumps(value), ts
            else:
                if rint(HOT_AUCTION_RATIO) > 0:
                    auction = (self._last_auction(n) // HOT_BATCH) * HOT_BATCH
                else:
                    auction = self._next_auction(n)
                if rint(HOT_BIDDER_RATIO) > 0:
                    bidder = (self._last_person(n) // HOT_BATCH) * HOT_BATCH + 1
                else:
                    bidder = self._next_person(n) + 1
                if rint(2) > 0:  # hot channels
                    ch = rint(len(CHANNELS))
                    channel, url = CHANNELS[ch], urls[rint(_POOL)]
                else:
                    cid = rint(10_000)
                    channel = f"channel-{cid}"
                    url = f"{urls[rint(_POOL)]}&channel_id={str(cid)[::-1]}"
                value = {
                    "bidder": FIRST_PERSON_ID + bidder, "price": self._price(), "channel": channel,
                    "url": url, "date_time": ts, "extra": ex_b[rint(_POOL)],
                }
                yield "bid", key_bytes(FIRST_AUCTION_ID + auction), dumps(value), ts


def generate(events: int, seed: int = 42) -> Topics:
    """All events, split per topic (in event order within each topic)."""
    out = Topics()
    ks, vs, ts = out.keys, out.values, out.timestamps
    for topic, k, v, t in NexmarkGenerator(events, seed):
        ks[topic].append(k)
        vs[topic].append(v)
        ts[topic].append(t)
    return out
