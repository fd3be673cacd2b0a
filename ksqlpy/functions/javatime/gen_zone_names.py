"""Writes ``zone_names.py``: the zone texts java.time prints and parses in Locale.US - for every zone id a
JDK knows, the names its ``z``/``zzzz`` letters print in standard and in daylight time and its ``v``/``vvvv``
generic names, and the zone that each name parses to (``z``: short names, ``zzzz``: full ones). They come from
the JDK's own locale data (CLDR, with the COMPAT names and the GMT-offset fallback where CLDR has none, e.g.
``Etc/GMT+5`` -> ``GMT-05:00``), read by running java.time itself: ``python -m
ksqlpy.functions.javatime.gen_zone_names`` (needs ``java``, 11 or later). Not imported at run time."""

from __future__ import annotations

import json
import pathlib
import subprocess
import tempfile
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_JAVA = r"""
import java.time.*; import java.time.format.*; import java.time.temporal.*; import java.util.*;
import java.time.zone.*;

/** Prints, as JSON, the zone texts java.time prints and parses in Locale.US (see the generated module). */
public class ZoneNames {
  static String q(String s) { return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }
  static String fmt(ZonedDateTime z, String p) { return z.format(DateTimeFormatter.ofPattern(p, Locale.US)); }
  static String parse(String text, String p) {
    try {
      TemporalAccessor t = DateTimeFormatter.ofPattern(p, Locale.US).parse(text);
      return t.query(TemporalQueries.zoneId()).getId();
    } catch (DateTimeParseException e) { return null; }
  }
  public static void main(String[] a) {
    TreeSet<String> ids = new TreeSet<>(ZoneId.getAvailableZoneIds());
    ids.add("UTC"); ids.add("GMT"); ids.add("UT");
    StringBuilder sb = new StringBuilder("{\"names\": {");
    TreeSet<String> shortNames = new TreeSet<>(), longNames = new TreeSet<>();
    boolean first = true;
    for (String id : ids) {
      ZoneId z = ZoneId.of(id);
      ZoneRules r = z.getRules();
      // an instant of standard time and one of daylight time, if the zone ever had one (1850-2100)
      Instant std = null, dst = null;
      for (Instant i = Instant.parse("2021-01-15T00:00:00Z"); std == null || dst == null; ) {
        if (r.isDaylightSavings(i)) { if (dst == null) dst = i; } else if (std == null) std = i;
        ZoneOffsetTransition t = r.nextTransition(i);
        if (t == null || t.getInstant().isAfter(Instant.parse("2100-01-01T00:00:00Z"))) break;
        i = t.getInstant();
      }
      for (Instant i = Instant.parse("2021-01-15T00:00:00Z"); dst == null || std == null; ) {
        ZoneOffsetTransition t = r.previousTransition(i);
        if (t == null) break;
        i = t.getInstant().minusSeconds(1);
        if (r.isDaylightSavings(i)) { if (dst == null) dst = i; } else if (std == null) std = i;
      }
      String[] n = new String[6];
      ZonedDateTime s = (std != null ? std : dst).atZone(z);
      if (std != null) { n[0] = fmt(s, "z"); n[1] = fmt(s, "zzzz"); }
      if (dst != null) { ZonedDateTime d = dst.atZone(z); n[2] = fmt(d, "z"); n[3] = fmt(d, "zzzz"); }
      n[4] = fmt(s, "v"); n[5] = fmt(s, "vvvv");
      sb.append(first ? "" : ",").append("\n").append(q(id)).append(": [");
      for (int k = 0; k < 6; k++) sb.append(k > 0 ? ", " : "").append(q(n[k]));
      sb.append("]");
      first = false;
      for (int k = 0; k < 6; k++) if (n[k] != null) (k % 2 == 0 ? shortNames : longNames).add(n[k]);
    }
    sb.append("},\n\"daylight\": {");
    first = true;
    for (String id : ids) {
      ZoneRules r = ZoneId.of(id).getRules();
      if (r.isFixedOffset()) continue;
      sb.append(first ? "" : ",").append("\n").append(q(id)).append(": [");
      Instant i = Instant.parse("1800-01-01T00:00:00Z");
      sb.append("[").append(i.getEpochSecond()).append(", ").append(r.isDaylightSavings(i)).append("]");
      for (ZoneOffsetTransition t = r.nextTransition(i); t != null
           && t.getInstant().isBefore(Instant.parse("2100-01-01T00:00:00Z")); t = r.nextTransition(t.getInstant())) {
        sb.append(", [").append(t.toEpochSecond()).append(", ").append(r.isDaylightSavings(t.getInstant())).append("]");
      }
      sb.append("]");
      first = false;
    }
    sb.append("},\n\"parse_short\": {");
    first = true;
    for (String name : shortNames) { sb.append(first ? "" : ",").append("\n").append(q(name)).append(": ").append(q(parse(name, "z"))); first = false; }
    sb.append("},\n\"parse_full\": {");
    first = true;
    for (String name : longNames) { sb.append(first ? "" : ",").append("\n").append(q(name)).append(": ").append(q(parse(name, "zzzz"))); first = false; }
    sb.append("},\n\"java\": ").append(q(System.getProperty("java.version"))).append("}\n");
    System.out.print(sb);
  }
}
"""


def _differs(key: str, changes: list[list[Any]]) -> bool:
    """Whether java.time's daylight flag differs from this machine's tz data (a positive save) after any change."""
    try:
        zone = ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    for sec, daylight in changes:
        if sec < 0:  # before 1970 the two tz data sets differ in offsets too
            continue
        d = datetime.fromtimestamp(sec + 1, zone)
        dst = d.dst()
        if (dst is not None and dst > timedelta(0)) != daylight:
            return True
    return False


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp, "ZoneNames.java")
        src.write_text(_JAVA)
        data = json.loads(subprocess.run(["java", str(src)], check=True, capture_output=True, text=True).stdout)
    daylight = {k: v for k, v in data["daylight"].items() if _differs(k, v)}
    out = pathlib.Path(__file__).with_name("zone_names.py")
    lines = [
        f'"""java.time\'s zone texts in Locale.US (JDK {data["java"]}); written by gen_zone_names.py from the JDK\'s locale',
        'data, not by hand."""',
        "",
        "# zone id -> (standard short, standard full, daylight short, daylight full, generic short, generic full);",
        "# None where the zone never had that kind of time",
        "NAMES: dict[str, tuple[str | None, ...]] = {",
    ]
    lines += [f"    {k!r}: {tuple(v)!r}," for k, v in sorted(data["names"].items())]
    lines += ["}", "", "# the zones whose daylight time java.time (ZoneRules.isDaylightSavings) tells otherwise than the tz",
              "# database's save does (a negative save: Europe/Dublin's winter): from each epoch second on, daylight",
              "# or not", "DAYLIGHT: dict[str, tuple[tuple[int, bool], ...]] = {"]
    lines += [f"    {k!r}: {tuple(tuple(x) for x in v)!r}," for k, v in sorted(daylight.items())]
    lines += ["}", "", "# a short name (z) -> the zone java.time parses it to", "PARSE_SHORT: dict[str, str] = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(data["parse_short"].items())]
    lines += ["}", "", "# a full name (zzzz) -> the zone java.time parses it to", "PARSE_FULL: dict[str, str] = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(data["parse_full"].items())]
    lines += ["}", ""]
    out.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
