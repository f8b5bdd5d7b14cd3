// A small pool in new syntax for the README's tour: three static slots and a partitionable one.
[
  MyType = "Machine"; Name = "slot1@node1.example"; Machine = "node1.example";
  Arch = "X86_64"; OpSys = "LINUX"; State = "Unclaimed"; Activity = "Idle";
  Cpus = 4; Memory = 16384; Disk = 100000000; KFlops = 1800000;
  Start = true; Rank = TARGET.Owner == "raman" ? 1 : 0;
  Requirements = START && TARGET.RequestMemory <= MY.Memory;
  UpdateSequenceNumber = 3; DaemonStartTime = 1764000000
]
[
  MyType = "Machine"; Name = "slot2@node1.example"; Machine = "node1.example";
  Arch = "X86_64"; OpSys = "LINUX"; State = "Unclaimed"; Activity = "Idle";
  Cpus = 1; Memory = 2048; Disk = 20000000; KFlops = 1800000;
  Start = true; Rank = 0;
  Requirements = START && TARGET.RequestMemory <= MY.Memory;
  UpdateSequenceNumber = 3; DaemonStartTime = 1764000000
]
[
  MyType = "Machine"; Name = "slot1@node2.example"; Machine = "node2.example";
  Arch = "aarch64"; OpSys = "LINUX"; State = "Claimed"; Activity = "Busy";
  Cpus = 8; Memory = 32768; Disk = 200000000; KFlops = 2400000;
  Start = true; Rank = 0;
  Requirements = START && TARGET.RequestMemory <= MY.Memory;
  UpdateSequenceNumber = 7; DaemonStartTime = 1764000000
]
[
  MyType = "Machine"; Name = "slot1@node3.example"; Machine = "node3.example";
  Arch = "X86_64"; OpSys = "LINUX"; State = "Unclaimed"; Activity = "Idle";
  PartitionableSlot = true; SlotType = "Partitionable";
  Cpus = 16; Memory = 65536; Disk = 400000000; KFlops = 2000000;
  Start = true; Rank = 0;
  Requirements = START && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory;
  UpdateSequenceNumber = 1; DaemonStartTime = 1764000000
]
