//! Reading ad files for `load`: the language's recovering reader
//! ([`adjoin_query::parse::reader`]) splits a text into one chunk per ad; here the chunks are
//! parsed ahead on other threads while the caller stores, and a bad ad becomes a [`BadAd`] at
//! its file position.

use adjoin_query::parse::reader::{parse_chunk, Chunk};
use adjoin_query::parse::Format;
use adjoin_query::{ClassAd, ParseError};
use std::fmt;

/// An ad that could not be read or stored, at its place in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadAd {
    /// The file (as given), or `-` for standard input.
    pub file: String,
    /// 1-based line of the error.
    pub line: u32,
    /// 1-based column of the error.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl BadAd {
    /// The bad ad of `file` that `e` (placed in the whole file) describes.
    pub fn at(file: &str, e: ParseError) -> BadAd {
        BadAd {
            file: file.to_owned(),
            line: e.line,
            col: e.col,
            message: e.message,
        }
    }
}

impl fmt::Display for BadAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// A chunk and what parsing it gave: its ads (as `T`), or the error placed in the whole text.
pub type Parsed<'t, T> = (Chunk<'t>, Result<Vec<T>, ParseError>);

/// Chunks parsed per batch handed over by [`parse_ahead`].
const PARSE_BATCH: usize = 256;

/// Parses `chunks` in `format` on `workers` threads of `scope`, turns each ad into a `T` there
/// with `f`, and hands the results back in order, in batches: parsing (the larger part of
/// loading a file) runs on other cores while the caller stores. Batch `b` goes to worker
/// `b % workers`, so reading the workers' channels in turn restores the order. Each ad is
/// dropped on the thread that made it (cheaper for the allocator than moving it). At most a few
/// batches per worker wait unclaimed; the workers stop early once the iterator is dropped.
pub fn parse_ahead<'scope, 't: 'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    chunks: Vec<Chunk<'t>>,
    format: Format,
    workers: usize,
    f: impl Fn(ClassAd) -> T + Send + Sync + 'scope,
) -> impl Iterator<Item = Vec<Parsed<'t, T>>> + 'scope {
    let workers = workers.max(1);
    let chunks = std::sync::Arc::new(chunks);
    let f = std::sync::Arc::new(f);
    let mut channels = Vec::with_capacity(workers);
    for w in 0..workers {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        channels.push(rx);
        let (chunks, f) = (chunks.clone(), f.clone());
        scope.spawn(move || {
            for batch in chunks.chunks(PARSE_BATCH).skip(w).step_by(workers) {
                let parsed: Vec<Parsed<'t, T>> = batch
                    .iter()
                    .map(|&c| {
                        let ads = parse_chunk(c, format);
                        (c, ads.map(|ads| ads.into_iter().map(&*f).collect()))
                    })
                    .collect();
                if tx.send(parsed).is_err() {
                    break;
                }
            }
        });
    }
    (0..).map_while(move |b| channels[b % workers].recv().ok())
}

/// How many threads parse ahead of a load: the cores there are, up to 4 (one load stores on
/// one thread, which keeps up with about two parsing).
pub fn parse_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse::reader::split;

    #[test]
    fn parsing_ahead_keeps_order_and_results() {
        let text: String = (0..1000)
            .map(|i| {
                if i % 97 == 0 {
                    format!("[a{i} = ]\n")
                } else {
                    format!("[a{i} = {i}]\n")
                }
            })
            .collect();
        let (format, chunks) = split(&text, Format::New);
        let want: Vec<String> = chunks
            .iter()
            .map(|&c| format!("{:?}", parse_chunk(c, format).map(|a| a[0].to_string())))
            .collect();
        let got: Vec<String> = std::thread::scope(|s| {
            parse_ahead(s, chunks, format, 3, |a| a)
                .flatten()
                .map(|(_, r)| format!("{:?}", r.map(|a| a[0].to_string())))
                .collect()
        });
        assert_eq!(got, want);
        // A receiver dropped early stops the thread (the scope would not end otherwise).
        std::thread::scope(|s| {
            let (_, chunks) = split(&text, Format::New);
            let mut batches = parse_ahead(s, chunks, format, 2, |a| a);
            assert!(batches.next().is_some());
        });
    }
}
