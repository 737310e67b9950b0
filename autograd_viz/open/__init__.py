"""Open: whoever built the graph (our `Value`, a learner's class of any shape, PyTorch's), it is
read here once into the plain `Graph` every later stage reads: `door.open_graph` is the one way
in, `size` refuses a graph too large before reading it, `snapshot` reads our Value, and
`engines/` reads every engine that is not ours — each into `autograd_viz.core.graph.Graph`.
"""
