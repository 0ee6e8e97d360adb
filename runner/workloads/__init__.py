"""The workloads' own packages, one each: sleep (the article's), connections (idle TCP
connections). Each defines its Workload (runner.workload), registers it, and holds the code the
workload runs and shows (execute, limits, show) for runner.workload to load by name."""
