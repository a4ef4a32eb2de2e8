module overhead/probes/go

go 1.19
