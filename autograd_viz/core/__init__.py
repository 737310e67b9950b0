"""Core: pure functions of an opened `Graph` and the small pieces every stage shares — the op
table (`ops`), the derivation as data (`derive`, `chain_rule`, `tensor_chain`, `steps`,
`naming`), equations and numbers as text and LaTeX, the errors, and the time limit on a
learner's code; nothing here draws or opens a graph.
"""
