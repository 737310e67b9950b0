"""Other engines: a learner's own micrograd-style class, micrograd's or PyTorch's, read.

Everything the kit knows about an engine that is not its own lives here, one job a module:

* `read` — the node-reader protocol: what a node must have (`data`, `grad`, its operands
  under `_prev` or a usual other name; `_op`, `label`, `_backward` or stored
  `_local_grads` optional), and
  `read_graph`, the one walk of such a graph into plain data (`ForeignGraph`), operand
  order recovered where a `set` lost it.
* `ops` — their spellings of operations (`"relu"`, `"**2"`) read as rows of the op table
  (`autograd_viz.ops`), and the right local derivatives from it.
* `run` — their backward() run once, recorded call by call, under a time limit.
* `check` — that run judged: each rule right, wrong or unchecked, the first wrong node.
* `probe` — their class tried on fresh values (`x * x`, `2 - x`), for `check_engine` alone.
* `replay` — their graph as a `Graph` snapshot whose rules replay the recorded run, so every
  picture shows their own numbers.
* `torch_graph`, `torch_run` — PyTorch's graph of a scalar tensor (`grad_fn`), read the same
  way, and PyTorch's own backward run once with hooks, replayed in the order they fired.

The door (`autograd_viz.door.open_graph`) is how every viewer comes in; the viewers read only
the snapshot, and mark the first wrong node where the caller asks (`autograd_viz.viz.mark`).
"""
