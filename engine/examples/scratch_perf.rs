//! scratch
use adjoin::workload::Workload;
use adjoin_storage::codec;
use std::time::Instant;
fn main() {
    let mut w = Workload::new(1).unwrap();
    let ads: Vec<_> = (0..10000).map(|i| w.slot_ad(i)).collect();
    let t = Instant::now();
    let enc: Vec<Vec<u8>> = ads.iter().map(|a| codec::encode(a).unwrap()).collect();
    println!("encode {:.2} us/ad, {} bytes", t.elapsed().as_secs_f64() * 1e6 / 1e4, enc[0].len());
    let t = Instant::now();
    for e in &enc { let _a: adjoin::query::ClassAd = codec::decode(e).unwrap(); }
    println!("decode {:.2} us/ad", t.elapsed().as_secs_f64() * 1e6 / 1e4);
    let t = Instant::now();
    for a in &ads { let _ = a.clone(); }
    println!("clone {:.2} us/ad", t.elapsed().as_secs_f64() * 1e6 / 1e4);
    let mode = std::env::args().nth(1).unwrap_or_default();
    for _ in 0..20 { if mode == "enc" { for a in &ads { let _ = codec::encode(a).unwrap(); } } else { for e in &enc { let _a: adjoin::query::ClassAd = codec::decode(e).unwrap(); } } }
}
