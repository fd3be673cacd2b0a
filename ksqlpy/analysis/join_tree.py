"""ksqlDB's JoinTree for n-way joins: the source each written join adds to a left-deep tree, flipping a join
whose criteria names an already joined source on its joined side (JoinInfo.flip), and the refusals of
circular and unplaceable joins."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ksqlpy.analysis.join_criteria import Condition
from ksqlpy.analysis.join_scope import text
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar.ast import JoinClause
from ksqlpy.plan.logical import Scan


@dataclass
class Placed:
    """One written join as ksqlDB's JoinTree places it: the source it adds to the tree, and whether the join
    was flipped to do so (its criteria's sides swapped, LEFT and RIGHT exchanged - JoinInfo.flip)."""

    join: int  # the join's position as written
    leaf: int  # the position (as written) of the source it adds
    flipped: bool


def build_join_tree(conditions: list[list[Condition]], leaves: list[Scan]) -> tuple[int, list[Placed]]:
    """ksqlDB's JoinTree.build over the joins as written: the tree starts from the first criteria's other source
    (not the joined one - usually the FROM source, but a source joined later when the criteria names it), and
    each join adds the source the tree lacks: its joined source, or - flipped - the criteria's other source when
    the joined one is already in the tree. A join with both sources already in the tree is circular, one with
    neither cannot be placed. Returns the root's position and the joins in tree order (which is written order)."""
    positions = {lf.alias: i for i, lf in enumerate(leaves)}
    tree: TreeNode | None = None
    placed: list[Placed] = []
    root = 0
    for i, conds in enumerate(conditions):
        c = conds[0]
        right = leaves[i + 1].alias
        if tree is None:
            tree = TreeNode(c.left_alias)
            root = positions[c.left_alias]
        members = tree.aliases()
        if right in members and c.left_alias in members:
            raise KsqlStatementError(f"Cannot perform circular join - both `{right}` and {text(c.left)} are already "
                                     f"included in the current join tree: {tree.debug(0)}")
        if c.left_alias in members:
            # ksqlpy's composite criteria: every condition's other side is already in the tree
            for o in conds[1:]:
                if o.left_alias not in members:
                    _refuse_unjoined(o, right)
            tree = TreeNode("", tree, TreeNode(right))
            placed.append(Placed(i, i + 1, flipped=False))
        elif right in members:
            if len(conds) > 1:
                _refuse_unjoined(c, right)
            tree = TreeNode("", tree, TreeNode(c.left_alias))
            placed.append(Placed(i, positions[c.left_alias], flipped=True))
        else:
            raise KsqlStatementError("Cannot build JOIN tree; neither source in the join is the FROM source or "
                                     f"included in a previous JOIN: {c.written}")
    return root, placed


def _refuse_unjoined(c: Condition, joined: str) -> None:
    ra, rb = c.sides
    raise KsqlStatementError(f"A join criteria is expected to reference the source (`{joined}`) in the FROM clause, "
                             f"instead the right source references `{rb}` and the left source references `{ra}`")


_FLIPPED_KIND = {"LEFT": "RIGHT", "RIGHT": "LEFT"}


def flip(jc: JoinClause, conds: list[Condition]) -> tuple[JoinClause, list[Condition]]:
    """JoinInfo.flip: the join seen from its other side - criteria sides swapped, LEFT and RIGHT exchanged."""
    kind = _FLIPPED_KIND.get(jc.kind, jc.kind)
    swapped = [replace(c, left=c.right, right=c.left, left_key=c.right_key, right_key=c.left_key,
                       left_alias=c.sides[0] if c.sides[1] == c.left_alias else c.sides[1])
               for c in conds]
    return replace(jc, kind=kind), swapped  # type: ignore[arg-type]


@dataclass
class TreeNode:
    """A node of ksqlDB's JoinTree: a source (leaf) or a join of two nodes."""

    alias: str
    left: TreeNode | None = None
    right: TreeNode | None = None

    def aliases(self) -> set[str]:
        if self.left is None or self.right is None:
            return {self.alias}
        return self.left.aliases() | self.right.aliases()

    def debug(self, indent: int) -> str:
        """JoinTree's debugString: a join as ``⋈`` with its sides on ``+--`` lines, a leaf as its alias."""
        if self.left is None or self.right is None:
            return f"`{self.alias}`"
        pad = " " * indent
        return f"⋈\n{pad}+--{self.left.debug(indent + 3)}\n{pad}+--{self.right.debug(indent + 3)}"
