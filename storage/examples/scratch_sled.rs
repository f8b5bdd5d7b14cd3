//! scratch
use adjoin_storage::codec;
use std::time::Instant;
fn main() {
    let ad = adjoin_query::parse::classad(&std::fs::read_to_string("/tmp/slot.ad").unwrap()).unwrap();
    let size: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(0);
    let mut v = codec::encode(&ad).unwrap();
    if size > 0 { v.resize(size, 7); }
    let dir = tempfile::tempdir().unwrap();
    let db = sled::Config::new().path(dir.path().join("x")).cache_capacity(256<<20).mode(sled::Mode::HighThroughput).open().unwrap();
    let tr = db.open_tree("t").unwrap();
    let n = 100_000u64;
    let t = Instant::now();
    for i in 0..n { tr.insert(i.to_be_bytes(), v.as_slice()).unwrap(); }
    println!("sled insert {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let t = Instant::now();
    let mut c = 0; for e in tr.iter() { let (_k, v) = e.unwrap(); c += v.len(); }
    println!("sled scan {:.2} us/op {c}", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let tr2 = db.open_tree("t2").unwrap();
    let t = Instant::now();
    for chunk in 0..(n / 1000) {
        let mut b = sled::Batch::default();
        for i in chunk*1000..(chunk+1)*1000 { b.insert(&i.to_be_bytes(), v.as_slice()); }
        tr2.apply_batch(b).unwrap();
    }
    println!("sled batch insert {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let tr3 = db.open_tree("t3").unwrap();
    let t = Instant::now();
    use sled::Transactional;
    for chunk in 0..(n / 1000) {
        [tr3.clone()].as_slice().transaction(|tv: &Vec<sled::transaction::TransactionalTree>| {
            for i in chunk*1000..(chunk+1)*1000 { tv[0].insert(&i.to_be_bytes(), v.as_slice())?; }
            Ok::<(), sled::transaction::ConflictableTransactionError<()>>(())
        }).unwrap();
    }
    println!("sled tx insert {:.2} us/op", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    let t = Instant::now();
    db.flush().unwrap();
    println!("flush {:.2} s; size {}", t.elapsed().as_secs_f64(), db.size_on_disk().unwrap());
}
