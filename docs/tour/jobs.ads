// Jobs in new syntax for the README's tour.
[
  MyType = "Job"; GlobalJobId = "submit.example#1.0#1764000100"; Owner = "raman";
  RequestCpus = 1; RequestMemory = 2048; RequestDisk = 1000000;
  Requirements = TARGET.Arch == "X86_64" && TARGET.OpSys == "LINUX" && TARGET.Memory >= RequestMemory;
  Rank = TARGET.KFlops / 1E6 + TARGET.Memory / 65536
]
[
  MyType = "Job"; GlobalJobId = "submit.example#1.1#1764000100"; Owner = "raman";
  RequestCpus = 4; RequestMemory = 8192; RequestDisk = 1000000;
  Requirements = TARGET.OpSys == "LINUX" && TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory;
  Rank = TARGET.KFlops / 1E6
]
[
  MyType = "Job"; GlobalJobId = "submit.example#2.0#1764000200"; Owner = "miron";
  RequestCpus = 2; RequestMemory = 4096; RequestDisk = 1000000;
  Requirements = TARGET.Arch == "aarch64" && TARGET.State == "Unclaimed";
  Rank = 0
]
