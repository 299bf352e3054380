"""The book's tools, built on the core and the shell: pictures (viz,
graph_layout), the rules table as text (rulebook), the page of errors'
finder (error_finder: al.explain), and the explorers and answer boxes
(widgets).  Nothing in the core or the shell imports them.
"""
