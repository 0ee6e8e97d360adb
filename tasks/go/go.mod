module memrun/tasks/go

go 1.26
