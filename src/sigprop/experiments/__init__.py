"""Simulation setups of each paper family: settings in, ``store.Labelled`` tensors out.

Each function takes the keyword arguments of its config slice (plus ``device``) and returns
labelled tensors with the address of every random stream it used. Figure and check rules read
these tensors; nothing here plots or judges.
"""
