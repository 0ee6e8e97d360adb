"""Everything committed that is made from committed data, made again: the figures and pages under
plots/ (each by the memrun command that makes it, listed in derived.toml) and the generated
blocks of the documentation (each between markers naming its command). `memrun derive` writes
them; `memrun derive --check` makes them in a scratch directory and names every file or block
that differs from what is committed, so a figure or a number in the docs can never drift from
its data. query.py answers the value and table commands those blocks use."""
