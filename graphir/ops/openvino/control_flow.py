"""TensorIterator, Loop and If (owned by the control-flow developer; others: do not edit).

Sub-graph operations whose bodies are graphir Models; shape inference re-infers
the bodies with the outer input types and evaluation runs them with the
interpreter.
"""
