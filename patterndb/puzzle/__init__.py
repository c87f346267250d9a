"""The puzzle model: board shapes, boards and goals, the canonical frame, ranking,
symmetries and pattern specifications."""
