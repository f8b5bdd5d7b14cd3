//! The `adjoin` command line.

mod cli;

// Decoding and dropping ads is many small allocations; glibc's allocator spends up to half
// the time of a full scan consolidating them (docs/benchmarks.md, "allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
