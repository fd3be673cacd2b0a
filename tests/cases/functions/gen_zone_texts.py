"""The zone texts of FORMAT_TIMESTAMP and TIMESTAMPTOSTRING as java.time prints them (Locale.US): ``z``/``zzzz``
a region's standard or daylight name from the JDK's locale data, the GMT format of the offset for a zone without
names (``Etc/GMT+5`` is ``GMT-05:00``), the id itself for a fixed offset; ``v``/``vvvv`` the generic name;
``VV`` the id (``GMT-8`` normalised to ``GMT-08:00``); ``Z``/``X``/``x``/``O`` the offset in their styles
(seconds and zero fields as OffsetIdPrinterParser prints them); PARSE_TIMESTAMP reads the same names back. The
expected texts were printed by java.time (JDK 17) for the same instants and zones.

Writes tests/cases/functions/zone-texts.json: ``python tests/cases/functions/gen_zone_texts.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

PATTERNS = ['z', 'zzzz', 'v', 'vvvv', 'VV', 'Z', 'ZZZZ', 'X', 'XXX', 'O', 'OOOO']

# (zone, epoch ms, java.time's text for each pattern)
JAVA: list[tuple[str, int, list[str]]] = [
    ('Etc/GMT+5', 1700000000000, ['GMT-05:00', 'GMT-05:00', 'GMT-05:00', 'GMT-05:00', 'Etc/GMT+5', '-0500', 'GMT-05:00', '-05', '-05:00', 'GMT-5', 'GMT-05:00']),
    ('Etc/GMT+5', 1690000000000, ['GMT-05:00', 'GMT-05:00', 'GMT-05:00', 'GMT-05:00', 'Etc/GMT+5', '-0500', 'GMT-05:00', '-05', '-05:00', 'GMT-5', 'GMT-05:00']),
    ('Etc/GMT-14', 1700000000000, ['GMT+14:00', 'GMT+14:00', 'GMT+14:00', 'GMT+14:00', 'Etc/GMT-14', '+1400', 'GMT+14:00', '+14', '+14:00', 'GMT+14', 'GMT+14:00']),
    ('Etc/GMT-14', 1690000000000, ['GMT+14:00', 'GMT+14:00', 'GMT+14:00', 'GMT+14:00', 'Etc/GMT-14', '+1400', 'GMT+14:00', '+14', '+14:00', 'GMT+14', 'GMT+14:00']),
    ('UTC', 1700000000000, ['UTC', 'Coordinated Universal Time', 'UTC', 'Coordinated Universal Time', 'UTC', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('UTC', 1690000000000, ['UTC', 'Coordinated Universal Time', 'UTC', 'Coordinated Universal Time', 'UTC', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('GMT', 1700000000000, ['GMT', 'Greenwich Mean Time', 'GMT', 'Greenwich Mean Time', 'GMT', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('GMT', 1690000000000, ['GMT', 'Greenwich Mean Time', 'GMT', 'Greenwich Mean Time', 'GMT', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('UT', 1700000000000, ['UT', 'UT', 'UT', 'UT', 'UT', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('UT', 1690000000000, ['UT', 'UT', 'UT', 'UT', 'UT', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('Etc/UTC', 1700000000000, ['UTC', 'Coordinated Universal Time', 'UTC', 'Coordinated Universal Time', 'Etc/UTC', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('Etc/UTC', 1690000000000, ['UTC', 'Coordinated Universal Time', 'UTC', 'Coordinated Universal Time', 'Etc/UTC', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('Z', 1700000000000, ['Z', 'Z', 'Z', 'Z', 'Z', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('Z', 1690000000000, ['Z', 'Z', 'Z', 'Z', 'Z', '+0000', 'GMT', 'Z', 'Z', 'GMT', 'GMT']),
    ('America/Los_Angeles', 1700000000000, ['PST', 'Pacific Standard Time', 'PT', 'Pacific Time', 'America/Los_Angeles', '-0800', 'GMT-08:00', '-08', '-08:00', 'GMT-8', 'GMT-08:00']),
    ('America/Los_Angeles', 1690000000000, ['PDT', 'Pacific Daylight Time', 'PT', 'Pacific Time', 'America/Los_Angeles', '-0700', 'GMT-07:00', '-07', '-07:00', 'GMT-7', 'GMT-07:00']),
    ('Asia/Kathmandu', 1700000000000, ['NPT', 'Nepal Time', 'NPT', 'Nepal Time', 'Asia/Kathmandu', '+0545', 'GMT+05:45', '+0545', '+05:45', 'GMT+5:45', 'GMT+05:45']),
    ('Asia/Kathmandu', 1690000000000, ['NPT', 'Nepal Time', 'NPT', 'Nepal Time', 'Asia/Kathmandu', '+0545', 'GMT+05:45', '+0545', '+05:45', 'GMT+5:45', 'GMT+05:45']),
    ('America/Sao_Paulo', 1700000000000, ['BRT', 'Brasilia Standard Time', 'BRT', 'Brasilia Time', 'America/Sao_Paulo', '-0300', 'GMT-03:00', '-03', '-03:00', 'GMT-3', 'GMT-03:00']),
    ('America/Sao_Paulo', 1690000000000, ['BRT', 'Brasilia Standard Time', 'BRT', 'Brasilia Time', 'America/Sao_Paulo', '-0300', 'GMT-03:00', '-03', '-03:00', 'GMT-3', 'GMT-03:00']),
    ('Asia/Kolkata', 1700000000000, ['IST', 'India Standard Time', 'IT', 'India Time', 'Asia/Kolkata', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('Asia/Kolkata', 1690000000000, ['IST', 'India Standard Time', 'IT', 'India Time', 'Asia/Kolkata', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('Europe/Berlin', 1700000000000, ['CET', 'Central European Standard Time', 'CET', 'Central European Time', 'Europe/Berlin', '+0100', 'GMT+01:00', '+01', '+01:00', 'GMT+1', 'GMT+01:00']),
    ('Europe/Berlin', 1690000000000, ['CEST', 'Central European Summer Time', 'CET', 'Central European Time', 'Europe/Berlin', '+0200', 'GMT+02:00', '+02', '+02:00', 'GMT+2', 'GMT+02:00']),
    ('Australia/Sydney', 1700000000000, ['AEDT', 'Australian Eastern Daylight Time', 'AET', 'Eastern Australia Time', 'Australia/Sydney', '+1100', 'GMT+11:00', '+11', '+11:00', 'GMT+11', 'GMT+11:00']),
    ('Australia/Sydney', 1690000000000, ['AEST', 'Australian Eastern Standard Time', 'AET', 'Eastern Australia Time', 'Australia/Sydney', '+1000', 'GMT+10:00', '+10', '+10:00', 'GMT+10', 'GMT+10:00']),
    ('Pacific/Chatham', 1700000000000, ['CHADT', 'Chatham Daylight Time', 'CHAT', 'Chatham Time', 'Pacific/Chatham', '+1345', 'GMT+13:45', '+1345', '+13:45', 'GMT+13:45', 'GMT+13:45']),
    ('Pacific/Chatham', 1690000000000, ['CHAST', 'Chatham Standard Time', 'CHAT', 'Chatham Time', 'Pacific/Chatham', '+1245', 'GMT+12:45', '+1245', '+12:45', 'GMT+12:45', 'GMT+12:45']),
    ('+05:30', 1700000000000, ['+05:30', '+05:30', '+05:30', '+05:30', '+05:30', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('+05:30', 1690000000000, ['+05:30', '+05:30', '+05:30', '+05:30', '+05:30', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('-08:00', 1700000000000, ['-08:00', '-08:00', '-08:00', '-08:00', '-08:00', '-0800', 'GMT-08:00', '-08', '-08:00', 'GMT-8', 'GMT-08:00']),
    ('-08:00', 1690000000000, ['-08:00', '-08:00', '-08:00', '-08:00', '-08:00', '-0800', 'GMT-08:00', '-08', '-08:00', 'GMT-8', 'GMT-08:00']),
    ('UTC+05:30', 1700000000000, ['UTC+05:30', 'UTC+05:30', 'UTC+05:30', 'UTC+05:30', 'UTC+05:30', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('UTC+05:30', 1690000000000, ['UTC+05:30', 'UTC+05:30', 'UTC+05:30', 'UTC+05:30', 'UTC+05:30', '+0530', 'GMT+05:30', '+0530', '+05:30', 'GMT+5:30', 'GMT+05:30']),
    ('GMT-8', 1700000000000, ['GMT-08:00', 'GMT-08:00', 'GMT-08:00', 'GMT-08:00', 'GMT-08:00', '-0800', 'GMT-08:00', '-08', '-08:00', 'GMT-8', 'GMT-08:00']),
    ('GMT-8', 1690000000000, ['GMT-08:00', 'GMT-08:00', 'GMT-08:00', 'GMT-08:00', 'GMT-08:00', '-0800', 'GMT-08:00', '-08', '-08:00', 'GMT-8', 'GMT-08:00']),
]

# the offset letters over fixed offsets with seconds: minutes and seconds are printed where the style always has
# them or they are not zero, and a text whose printed fields are all zero is the style's no-offset text
OFFSET_PATTERNS = ['X', 'XX', 'XXX', 'XXXX', 'XXXXX', 'x', 'xx', 'xxx', 'xxxx', 'xxxxx', 'Z', 'ZZ', 'ZZZ', 'ZZZZ', 'ZZZZZ', 'O', 'OOOO']
OFFSETS: list[tuple[str, list[str]]] = [
    ('+00:00:30', ['Z', 'Z', 'Z', '+000030', '+00:00:30', '+00', '+0000', '+00:00', '+000030', '+00:00:30', '+0000', '+0000', '+0000', 'GMT+00:00:30', '+00:00:30', 'GMT+0:00:30', 'GMT+00:00:30']),
    ('-00:00:30', ['Z', 'Z', 'Z', '-000030', '-00:00:30', '+00', '+0000', '+00:00', '-000030', '-00:00:30', '+0000', '+0000', '+0000', 'GMT-00:00:30', '-00:00:30', 'GMT-0:00:30', 'GMT-00:00:30']),
    ('+01:00:30', ['+01', '+0100', '+01:00', '+010030', '+01:00:30', '+01', '+0100', '+01:00', '+010030', '+01:00:30', '+0100', '+0100', '+0100', 'GMT+01:00:30', '+01:00:30', 'GMT+1:00:30', 'GMT+01:00:30']),
    ('-01:00:30', ['-01', '-0100', '-01:00', '-010030', '-01:00:30', '-01', '-0100', '-01:00', '-010030', '-01:00:30', '-0100', '-0100', '-0100', 'GMT-01:00:30', '-01:00:30', 'GMT-1:00:30', 'GMT-01:00:30']),
    ('+00:30', ['+0030', '+0030', '+00:30', '+0030', '+00:30', '+0030', '+0030', '+00:30', '+0030', '+00:30', '+0030', '+0030', '+0030', 'GMT+00:30', '+00:30', 'GMT+0:30', 'GMT+00:30']),
    ('+05:30:15', ['+0530', '+0530', '+05:30', '+053015', '+05:30:15', '+0530', '+0530', '+05:30', '+053015', '+05:30:15', '+0530', '+0530', '+0530', 'GMT+05:30:15', '+05:30:15', 'GMT+5:30:15', 'GMT+05:30:15']),
    ('-12:00', ['-12', '-1200', '-12:00', '-1200', '-12:00', '-12', '-1200', '-12:00', '-1200', '-12:00', '-1200', '-1200', '-1200', 'GMT-12:00', '-12:00', 'GMT-12', 'GMT-12:00']),
    ('+00:00', ['Z', 'Z', 'Z', 'Z', 'Z', '+00', '+0000', '+00:00', '+0000', '+00:00', '+0000', '+0000', '+0000', 'GMT', 'Z', 'GMT', 'GMT']),
    ('+18:00', ['+18', '+1800', '+18:00', '+1800', '+18:00', '+18', '+1800', '+18:00', '+1800', '+18:00', '+1800', '+1800', '+1800', 'GMT+18:00', '+18:00', 'GMT+18', 'GMT+18:00']),
    ('-00:59:59', ['-0059', '-0059', '-00:59', '-005959', '-00:59:59', '-0059', '-0059', '-00:59', '-005959', '-00:59:59', '-0059', '-0059', '-0059', 'GMT-00:59:59', '-00:59:59', 'GMT-0:59:59', 'GMT-00:59:59']),
    ('+10:00:01', ['+10', '+1000', '+10:00', '+100001', '+10:00:01', '+10', '+1000', '+10:00', '+100001', '+10:00:01', '+1000', '+1000', '+1000', 'GMT+10:00:01', '+10:00:01', 'GMT+10:00:01', 'GMT+10:00:01']),
]

# zones whose tz data has a negative save: java.time calls Dublin's summer and Casablanca's +01:00 daylight
NEGATIVE_SAVES = [
    ("Europe/Dublin", 1700000000000, "GMT|Greenwich Mean Time|IT|Z"),
    ("Europe/Dublin", 1690000000000, "IST|Irish Standard Time|IT|+01:00"),
    ("Africa/Casablanca", 1700000000000, "WEST|Western European Summer Time|WET|+01:00"),
    ("Africa/Windhoek", 1690000000000, "WAT|Western African Time|CAT|+02:00"),
]


# PARSE_TIMESTAMP of zone texts: (pattern, text, java.time's epoch ms or None where it fails to parse). z and v read
# the short names, zzzz and vvvv the full ones, each mapped to its metazone's preferred zone (whose rules give
# the offset of the local time, so PST in June is UTC-7); zone ids, +HH:MM offsets and UTC/GMT/UT with one too
PARSED: list[tuple[str, str, int | None]] = [
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 ACST', 1622566800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 ACST', 1609520400000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 ACT', 1622566800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 ACT', 1609520400000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 AET', 1622512800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 AET', 1609462800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 ART', 1622559600000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 ART', 1609513200000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 BRT', 1622559600000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 BRT', 1609513200000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 CST', 1622566800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 CST', 1609524000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 CDT', 1622566800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 CDT', 1609524000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 CET', 1622541600000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 CET', 1609498800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 CEST', 1622541600000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 CEST', 1609498800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 EST', 1622563200000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 EST', 1609520400000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 IST', 1622548800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 IST', 1609502400000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 BST', 1622509200000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 BST', 1609462800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 JST', 1622516400000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 JST', 1609470000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 NPT', 1622528100000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 NPT', 1609481700000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 PST', 1622574000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 PST', 1609531200000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 PDT', 1622574000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 PDT', 1609531200000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 WAT', 1622545200000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 WAT', 1609498800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 SGT', 1622520000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 SGT', 1609473600000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 HKT', 1622520000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 HKT', 1609473600000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 MSK', 1622538000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 MSK', 1609491600000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 NZST', 1622505600000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 NZST', 1609455600000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 AEDT', 1622512800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 AEDT', 1609462800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 ChST', 1622512800000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 ChST', 1609466400000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 GMT+03:00', 1622538000000),
    ('yyyy-MM-dd HH:mm z', '2021-01-01 12:00 GMT+03:00', 1609491600000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 GMT+05:30', 1622529000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 UTC+05:30:15', 1622528985000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 GMT0', 1622548800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 Z', 1622548800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 +05:30', 1622529000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 UTC+5', None),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 -0800', None),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Pacific Standard Time', 1622574000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Pacific Daylight Time', 1622574000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 India Standard Time', 1622529000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Brasilia Standard Time', 1622559600000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Nepal Time', 1622528100000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Coordinated Universal Time', 1622548800000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Greenwich Mean Time', 1622548800000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Central European Summer Time', 1622541600000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Australian Eastern Standard Time', 1622512800000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Pacific Time', 1622574000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Moscow Standard Time', 1622538000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 Hawaii-Aleutian Standard Time', 1622584800000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 America/Los_Angeles', 1622574000000),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 Asia/Kolkata', 1622529000000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 PST', None),
    ('yyyy-MM-dd HH:mm z', '2021-06-01 12:00 Pacific Standard Time', None),
    ('yyyy-MM-dd HH:mm v', '2021-06-01 12:00 PT', 1622574000000),
    ('yyyy-MM-dd HH:mm vvvv', '2021-06-01 12:00 Central European Time', 1622541600000),
    ('yyyy-MM-dd HH:mm zzzz', '2021-06-01 12:00 R\u00e9union Time', 1622534400000),
]

def cases() -> list[dict[str, Any]]:
    out = []
    for zone, ms, texts in JAVA:
        probes: list[tuple[str, object]] = []
        for pattern, text in zip(PATTERNS, texts, strict=True):
            probes.append((f"FORMAT_TIMESTAMP(TS, '{pattern}', '{zone}')", text))
        # the deprecated BIGINT form formats the same way
        probes.append((f"TIMESTAMPTOSTRING(MS, 'z|zzzz|VV|O', '{zone}')",
                       "|".join(texts[PATTERNS.index(p)] for p in ("z", "zzzz", "VV", "O"))))
        out.append(probe_case(f"zone texts of {zone} at {ms}", probes, "TS TIMESTAMP, MS BIGINT",
                              {"TS": ms, "MS": ms}))
    for zone, texts in OFFSETS:
        probes = [(f"FORMAT_TIMESTAMP(TS, '{pattern}', '{zone}')", text)
                  for pattern, text in zip(OFFSET_PATTERNS, texts, strict=True)]
        out.append(probe_case(f"offset texts of {zone}", probes, "TS TIMESTAMP", {"TS": 0}))
    out.append(probe_case("daylight names where the tz data saves negatively",
                          [(f"FORMAT_TIMESTAMP(TS{i}, 'z|zzzz|v|XXX', '{zone}')", text)
                           for i, (zone, _, text) in enumerate(NEGATIVE_SAVES)],
                          ", ".join(f"TS{i} TIMESTAMP" for i in range(len(NEGATIVE_SAVES))),
                          {f"TS{i}": ms for i, (_, ms, _) in enumerate(NEGATIVE_SAVES)}))
    for i in range(0, len(PARSED), 20):
        chunk = PARSED[i:i + 20]
        out.append(probe_case(f"zone texts parsed ({i // 20 + 1})",
                              [(f"PARSE_TIMESTAMP('{text}', '{pattern}')", ms) for pattern, text, ms in chunk],
                              "N INT", {"N": 1}))
    return out


if __name__ == "__main__":
    write_cases(str(pathlib.Path(__file__).with_name("zone-texts.json")), __doc__ or "", cases())
