"""Other engines (a learner's own micrograd-style class, micrograd's, PyTorch's): everything the
kit knows about an engine that is not its own lives here, one job a module (listed in
docs/architecture.md), read once into the plain `Graph` every viewer reads. Every viewer comes in
through the door (`autograd_viz.open.door.open_graph`) and reads only the snapshot.
"""
