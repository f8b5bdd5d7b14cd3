//! scratch
use std::time::Instant;
fn main() {
    let size: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(16);
    let n: u64 = std::env::args().nth(2).map(|a| a.parse().unwrap()).unwrap_or(200000);
    let mode = std::env::args().nth(3).unwrap_or_default();
    let v = vec![7u8; size];
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = sled::Config::new().path(dir.path().join("x")).cache_capacity(1<<30).flush_every_ms(None);
    cfg = if mode == "low" { cfg.mode(sled::Mode::LowSpace) } else { cfg.mode(sled::Mode::HighThroughput) };
    let db = cfg.open().unwrap();
    let tr = db.open_tree("t").unwrap();
    let t = Instant::now();
    for i in 0..n { tr.insert(i.to_be_bytes(), v.as_slice()).unwrap(); }
    println!("seq insert {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let tr = db.open_tree("r").unwrap();
    let t = Instant::now();
    for i in 0..n { tr.insert((i.wrapping_mul(0x9E3779B97F4A7C15)).to_be_bytes(), v.as_slice()).unwrap(); }
    println!("random insert {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let t = Instant::now();
    for i in 0..n { tr.get((i.wrapping_mul(0x9E3779B97F4A7C15)).to_be_bytes()).unwrap(); }
    println!("random get {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
