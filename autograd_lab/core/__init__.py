"""The core: what a reader opens to follow a backward pass (chapter 06).

tensor (what a tensor is), recording (an operation records a node), rules (the
rules table: each row's forward, VJP and JVP), engine (the walk), inplace
(in-place writes and views); the optional machinery recording calls, each
behind its switch: versions, saved, forward_mode, watch; below them: dtypes,
modes, printing, userframe, checks.  It imports nothing from the shell around
it but devices (a tensor's .device); tests/core/test_layers.py keeps it so.
"""
