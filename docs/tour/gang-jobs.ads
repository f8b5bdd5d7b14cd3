// A job for the tour's `adjoin gang` (docs/gangs.md): it needs a machine and a license at once,
// through two ports; the machine's Requirements read the job's RequestMemory through its port.
[
  MyType = "Job"; GlobalJobId = "submit.example#4.0#1764000400"; Owner = "raman";
  RequestCpus = 1; RequestMemory = 1024;
  Ports = {
    [ Label = cpu; Requirements = cpu.Arch == "X86_64" && cpu.Memory >= RequestMemory; Rank = cpu.Memory ],
    [ Label = lic; Requirements = lic.Product == "matlab" ]
  }
]
