"""Writes ``unicode_scripts.py``: Unicode scripts and blocks as code point ranges, for Java's ``\\p{IsLatin}``,
``\\p{InGreek}``, ``\\p{script=..}``, ``\\p{block=..}`` (Python's ``unicodedata`` has neither). The ranges come
from Perl's Unicode::UCD (charscripts, charblocks), which every Debian system carries; run
``python -m ksqlpy.functions.gen_unicode_scripts`` to rewrite the module. Not imported at run time."""

from __future__ import annotations

import json
import pathlib
import subprocess

_PERL = r"""
use Unicode::UCD qw(charscripts charblocks prop_value_aliases);
use JSON::PP;
my $s = charscripts(); my $b = charblocks(); my %codes;
for my $k (keys %$s) { my @a = prop_value_aliases("sc", $k); $codes{$k} = $a[0]; }
print JSON::PP->new->canonical->encode({version => Unicode::UCD::UnicodeVersion(),
    scripts => {map { $_ => [map { [$_->[0], $_->[1]] } @{$s->{$_}}] } keys %$s},
    blocks => {map { $_ => [map { [$_->[0], $_->[1]] } @{$b->{$_}}] } keys %$b}, codes => \%codes});
"""


def _ranges(ranges: list[list[int]]) -> str:
    return ",".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in sorted(ranges))


def main() -> None:
    data = json.loads(subprocess.run(["perl", "-e", _PERL], capture_output=True, text=True, check=True).stdout)
    lines = [
        f'"""Unicode {data["version"]} scripts and blocks as hex code point ranges ``a-b,c``; written by',
        "gen_unicode_scripts.py (from Perl's Unicode::UCD), not by hand.\"\"\"",
        "",
        "# script name (as Unicode writes it) -> (ISO 15924 code, ranges)",
        "SCRIPTS: dict[str, tuple[str, str]] = {",
    ]
    for name in sorted(data["scripts"]):
        lines.append(f"    {name!r}: ({data['codes'][name]!r}, {_ranges(data['scripts'][name])!r}),")
    lines += ["}", "", "# block name (as Unicode writes it) -> ranges", "BLOCKS: dict[str, str] = {"]
    for name in sorted(data["blocks"]):
        lines.append(f"    {name!r}: {_ranges(data['blocks'][name])!r},")
    lines += ["}", ""]
    out = pathlib.Path(__file__).with_name("unicode_scripts.py")
    out.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
