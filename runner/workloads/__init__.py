"""The workloads' own packages, one each: sleep (the article's), connections (idle TCP
connections), web (the http workload: a keep-alive HTTP service under load; not `http`, the
standard library's name), tick (tasks that keep state and wake on a timer). Each defines its
Workload (runner.workload), registers it, and holds the code the workload runs and shows
(execute, limits, show) for runner.workload to load by name."""
