//! Loading ad files into a collection: every good ad is stored and every bad one reported at
//! its file position, or, strictly, all or nothing.

use super::indexes::Writing;
use super::{Db, DbError};
use crate::files::{parse_ahead, parse_workers, BadAd};
use adjoin_index::Converted;
use adjoin_query::parse::reader::{parse_chunk, split, Chunk};
use adjoin_query::parse::Format;
use adjoin_query::ClassAd;
use adjoin_storage::{AdError, Put, PutOptions};
use std::path::Path;
use std::sync::Arc;

/// How to load.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// The format of the input (`Auto` decides per file).
    pub format: Format,
    /// Ids, expiry and durability of the stored ads. A non-strict load commits a chunk at a
    /// time and, with `Buffered`, flushes once at the end.
    pub put: PutOptions,
    /// Refuse the whole load if any ad is bad: nothing is stored.
    pub strict: bool,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            format: Format::Auto,
            put: PutOptions {
                durability: adjoin_storage::Durability::Buffered,
                ..PutOptions::default()
            },
            strict: false,
        }
    }
}

/// An ad stored by a load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedAd {
    /// The file it came from.
    pub file: String,
    /// The line it starts on.
    pub line: u32,
    /// What storing it did (its id, whether generated or replacing).
    pub put: Put,
}

/// What a load did.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// The ads stored, in input order.
    pub stored: Vec<LoadedAd>,
    /// The ads not stored (malformed, or refused by the store), in input order.
    pub bad: Vec<BadAd>,
    /// Stale updates not stored (the stored ad under their id carries a later
    /// `UpdateSequenceNumber`: HTCondor's collector drops them alike), in input order. A
    /// non-strict load counts them apart from `bad`: they are not errors in the input.
    pub stale: Vec<BadAd>,
}

/// Progress of a load, reported after each committed chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadProgress {
    /// Bytes of input read up to the last committed ad.
    pub bytes_done: u64,
    /// Bytes of input in all.
    pub bytes_total: u64,
    /// Ads stored so far.
    pub stored: u64,
    /// Bad ads so far.
    pub bad: u64,
}

/// One input: its name for messages, its text, and where its text had bytes that are not
/// UTF-8 (offsets into `text`, where each such run became U+FFFD).
struct Source {
    name: String,
    text: String,
    invalid: Vec<usize>,
}

impl Source {
    fn valid(name: String, text: String) -> Source {
        Source {
            name,
            text,
            invalid: Vec::new(),
        }
    }

    /// Decodes `bytes`, replacing each run of invalid bytes by U+FFFD and noting where.
    fn decode(name: String, bytes: &[u8]) -> Source {
        let mut text = String::with_capacity(bytes.len());
        let mut invalid = Vec::new();
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                invalid.push(text.len());
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
        Source {
            name,
            text,
            invalid,
        }
    }

    /// The first invalid offset within `text[start..end]`.
    fn invalid_in(&self, start: usize, end: usize) -> Option<usize> {
        let i = self.invalid.partition_point(|&o| o < start);
        self.invalid.get(i).copied().filter(|&o| o < end)
    }

    /// Line and column of byte offset `at`.
    fn position(&self, at: usize) -> (u32, u32) {
        let before = &self.text[..at];
        let line = before.matches('\n').count() as u32 + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        (line, col)
    }
}

/// Fails on the first of `paths` (`-` is standard input) that is not a file to read: missing,
/// or a directory. [`Db::load_files`] checks first; a caller may check before opening anything.
pub fn check_files(paths: &[impl AsRef<Path>]) -> Result<(), DbError> {
    for p in paths {
        let p = p.as_ref();
        if p.as_os_str() != "-" && !p.is_file() {
            let (kind, what) = match p.is_dir() {
                true => (std::io::ErrorKind::InvalidInput, "a directory, not a file"),
                false => (std::io::ErrorKind::NotFound, "no such file"),
            };
            return Err(DbError::Io {
                path: p.to_owned(),
                source: std::io::Error::new(kind, what),
            });
        }
    }
    Ok(())
}

fn read_source(path: &Path) -> Result<Source, DbError> {
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map_err(|source| {
            DbError::Io {
                path: path.to_owned(),
                source,
            }
        })?;
        b
    } else {
        std::fs::read(path).map_err(|source| DbError::Io {
            path: path.to_owned(),
            source,
        })?
    };
    // A byte-order mark opening the file is not part of its first ad.
    let mut bytes = bytes;
    let bom = "\u{feff}".as_bytes();
    if bytes.starts_with(bom) {
        bytes.drain(..bom.len());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Source::valid(name, text),
        Err(e) => Source::decode(name, e.as_bytes()),
    })
}

/// The bad ad for a chunk holding bytes that are not UTF-8, if it does.
fn not_utf8(source: &Source, chunk: &Chunk<'_>) -> Option<BadAd> {
    let start = chunk.text.as_ptr() as usize - source.text.as_ptr() as usize;
    let at = source.invalid_in(start, start + chunk.text.len())?;
    let (line, col) = source.position(at);
    Some(BadAd {
        file: source.name.clone(),
        line,
        col,
        message: "bytes that are not UTF-8 (the ad is skipped; ads must be UTF-8)".into(),
    })
}

/// A store refusal as a bad ad at the ad's position.
fn refused(file: &str, line: u32, e: &AdError) -> BadAd {
    BadAd {
        file: file.to_owned(),
        line,
        col: 1,
        message: e.to_string(),
    }
}

impl Db {
    /// Loads the ads of `text` (named `file` in messages) into `collection`.
    pub fn load_text(
        &self,
        collection: &str,
        file: &str,
        text: &str,
        opts: &LoadOptions,
    ) -> Result<LoadReport, DbError> {
        let text = adjoin_query::parse::without_bom(text);
        let sources = vec![Source::valid(file.to_owned(), text.to_owned())];
        self.load_sources(collection, sources.into_iter().map(Ok), opts, &mut |_| {})
    }

    /// Loads the ad files `paths` (`-` is standard input) into `collection`, calling `progress`
    /// after each committed chunk (while the load holds the Db's write lock: `progress` must not
    /// call back into this `Db`).
    pub fn load_files(
        &self,
        collection: &str,
        paths: &[impl AsRef<Path>],
        opts: &LoadOptions,
        progress: &mut dyn FnMut(&LoadProgress),
    ) -> Result<LoadReport, DbError> {
        check_files(paths)?;
        let sources = paths.iter().map(|p| read_source(p.as_ref()));
        self.load_sources(collection, sources, opts, progress)
    }

    fn load_sources(
        &self,
        collection: &str,
        sources: impl Iterator<Item = Result<Source, DbError>>,
        opts: &LoadOptions,
        progress: &mut dyn FnMut(&LoadProgress),
    ) -> Result<LoadReport, DbError> {
        let _span = tracing::info_span!("load", collection, strict = opts.strict).entered();
        if opts.strict {
            return self.load_strict(collection, sources, opts);
        }
        self.hold_index_if_cheap(collection)?;
        let mut report = LoadReport::default();
        let loaded = self.writing_to(&[collection], |w| {
            self.load_chunks(collection, sources, opts, progress, w, &mut report)
        });
        match loaded {
            Ok(()) => Ok(report),
            Err(e) if !report.stored.is_empty() => {
                // What the failed load committed stays; make it durable if the store still can.
                let stored = report.stored.len() as u64;
                let durable = if self.store().flush().is_ok() {
                    stored
                } else {
                    0
                };
                Err(DbError::LoadFailed {
                    collection: collection.to_owned(),
                    stored,
                    durable,
                    source: Box::new(e),
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Loads chunk by chunk, applying each committed chunk to the held index, if any.
    fn load_chunks(
        &self,
        collection: &str,
        sources: impl Iterator<Item = Result<Source, DbError>>,
        opts: &LoadOptions,
        progress: &mut dyn FnMut(&LoadProgress),
        w: &mut Writing<'_>,
        report: &mut LoadReport,
    ) -> Result<(), DbError> {
        // When an index follows, the parse workers convert the ads for it too; the converted
        // ads of the pushed, not yet committed ads wait here.
        let converter = w.converter(collection);
        let keep = converter.is_some();
        let mut kept: Vec<Option<Converted>> = Vec::new();
        let mut loader = self.store().loader(collection, opts.put.clone());
        let mut origin: Vec<(usize, u32)> = Vec::new(); // (file index, line) per pushed ad
        let mut files: Vec<String> = Vec::new();
        let mut reported = 0usize;
        let mut prog = LoadProgress::default();
        let mut done_before = 0u64;
        let absorb = |loader: &adjoin_storage::Loader<'_>,
                      reported: &mut usize,
                      report: &mut LoadReport,
                      origin: &[(usize, u32)],
                      files: &[String],
                      kept: &mut Vec<Option<Converted>>,
                      w: &mut Writing<'_>| {
            let results = &loader.results()[*reported..];
            for (i, (r, &(f, line))) in results.iter().zip(&origin[*reported..]).enumerate() {
                match r {
                    Ok(put) => {
                        if let Some(ad) = kept.get_mut(i).and_then(Option::take) {
                            w.apply(collection, |h| h.apply_converted(put, ad));
                        }
                        report.stored.push(LoadedAd {
                            file: files[f].clone(),
                            line,
                            put: put.clone(),
                        });
                    }
                    Err(e @ AdError::Stale { .. }) => {
                        report.stale.push(refused(&files[f], line, e));
                    }
                    Err(e) => report.bad.push(refused(&files[f], line, e)),
                }
            }
            kept.drain(..results.len().min(kept.len()));
            *reported = loader.results().len();
        };
        for source in sources {
            let source = source?;
            prog.bytes_total += source.text.len() as u64;
            files.push(source.name.clone());
            let f = files.len() - 1;
            let (format, chunks) = split(&source.text, opts.format);
            // Parsing runs on another thread, ahead of storing (see `parse_ahead`).
            let store = self.store();
            let put = &opts.put;
            std::thread::scope(|scope| -> Result<(), DbError> {
                let workers = parse_workers();
                let converter = &converter;
                let parsed = parse_ahead(scope, chunks, format, workers, move |ad| {
                    let prepared = store.prepare(&ad, put);
                    (
                        prepared,
                        converter.as_ref().map(|c| c.convert(&Arc::new(ad))),
                    )
                });
                for (chunk, parsed) in parsed.flatten() {
                    let offset = chunk.text.as_ptr() as u64 - source.text.as_ptr() as u64;
                    if let Some(bad) = not_utf8(&source, &chunk) {
                        report.bad.push(bad);
                        continue;
                    }
                    match parsed {
                        Ok(ads) => {
                            for (ad, parsed) in ads {
                                origin.push((f, chunk.line));
                                if keep {
                                    kept.push(parsed);
                                }
                                if loader.push_prepared(ad)? > 0 {
                                    absorb(
                                        &loader,
                                        &mut reported,
                                        report,
                                        &origin,
                                        &files,
                                        &mut kept,
                                        w,
                                    );
                                    prog.bytes_done = done_before + offset;
                                    prog.stored = report.stored.len() as u64;
                                    prog.bad = report.bad.len() as u64;
                                    progress(&prog);
                                }
                            }
                        }
                        Err(e) => report.bad.push(BadAd::at(&source.name, e)),
                    }
                }
                Ok(())
            })?;
            done_before += source.text.len() as u64;
        }
        loader.commit()?;
        absorb(
            &loader,
            &mut reported,
            report,
            &origin,
            &files,
            &mut kept,
            w,
        );
        loader.finish()?;
        // Bad ads were noted as met, refusals as committed: put both in input order.
        report.bad.sort_by(|a, b| {
            let fa = files.iter().position(|f| *f == a.file);
            let fb = files.iter().position(|f| *f == b.file);
            (fa, a.line, a.col).cmp(&(fb, b.line, b.col))
        });
        prog.bytes_done = prog.bytes_total;
        prog.stored = report.stored.len() as u64;
        prog.bad = report.bad.len() as u64;
        progress(&prog);
        Ok(())
    }

    /// All or nothing: parse everything; if anything is bad, refuse; else store every ad in one
    /// transaction, which a refused ad aborts.
    fn load_strict(
        &self,
        collection: &str,
        sources: impl Iterator<Item = Result<Source, DbError>>,
        opts: &LoadOptions,
    ) -> Result<LoadReport, DbError> {
        let mut ads: Vec<ClassAd> = Vec::new();
        let mut origin: Vec<(String, u32)> = Vec::new();
        let mut bad = Vec::new();
        for source in sources {
            let source = source?;
            let (format, chunks) = split(&source.text, opts.format);
            for chunk in chunks {
                if let Some(b) = not_utf8(&source, &chunk) {
                    bad.push(b);
                    continue;
                }
                match parse_chunk(chunk, format) {
                    Ok(parsed) => {
                        for ad in parsed {
                            ads.push(ad);
                            origin.push((source.name.clone(), chunk.line));
                        }
                    }
                    Err(e) => bad.push(BadAd::at(&source.name, e)),
                }
            }
        }
        if !bad.is_empty() {
            return Err(DbError::Refused { bad });
        }
        let mut put = opts.put.clone();
        put.durability = adjoin_storage::Durability::Immediate;
        self.hold_index_if_cheap(collection)?;
        let stored = self.writing_to(&[collection], |w| {
            let stored = self.store().put_all(collection, &ads, &put);
            if let Ok(puts) = &stored {
                for (p, ad) in puts.iter().zip(ads) {
                    w.apply(collection, |h| h.apply_put(p, Arc::new(ad)));
                }
            }
            Ok(stored)
        })?;
        match stored {
            Ok(puts) => Ok(LoadReport {
                stored: puts
                    .into_iter()
                    .zip(origin)
                    .map(|(put, (file, line))| LoadedAd { file, line, put })
                    .collect(),
                bad: Vec::new(),
                stale: Vec::new(),
            }),
            Err(AdError::Refused { index, reason }) => {
                let (file, line) = origin.get(index).cloned().unwrap_or_default();
                Err(DbError::Refused {
                    bad: vec![refused(&file, line, &reason)],
                })
            }
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, strict: bool) -> (Db, Result<LoadReport, DbError>) {
        let db = Db::open_in_memory().expect("db");
        let opts = LoadOptions {
            strict,
            ..LoadOptions::default()
        };
        let r = db.load_text("m", "in.ads", text, &opts);
        (db, r)
    }

    #[test]
    fn good_ads_stored_bad_ones_placed() {
        let (db, r) = load(
            "[Name = \"a\"]\n[Name = \"b\"; x = ]\n[Name = \"c\"]\n[y = 1]",
            false,
        );
        let r = r.expect("load");
        let ids: Vec<(&str, u32)> = r
            .stored
            .iter()
            .map(|a| (a.put.id.as_str(), a.line))
            .collect();
        assert_eq!(ids, [("a", 1), ("c", 3), ("auto-1", 4)]);
        assert_eq!(r.bad.len(), 1);
        assert!(
            r.bad[0].to_string().starts_with("in.ads:2:"),
            "{}",
            r.bad[0]
        );
        assert_eq!(db.count("m", None).expect("count"), 3);
    }

    #[test]
    fn refusals_by_the_store_are_placed_too() {
        let db = Db::open_in_memory().expect("db");
        db.put(
            "m",
            &adjoin_query::parse::classad("[Name = \"t\"; UpdateSequenceNumber = 5]").expect("ad"),
        )
        .expect("put");
        db.consume("m", "t").expect("consume");
        let r = db
            .load_text(
                "m",
                "f",
                "[Name = \"a\"]\n\n[Name = \"t\"; UpdateSequenceNumber = 4]\n[Name = \"\"]",
                &LoadOptions::default(),
            )
            .expect("load");
        assert_eq!(r.stored.len(), 1);
        // A stale update is counted apart; an id the store cannot take is a bad ad.
        assert_eq!(
            (r.stale[0].line, r.stale[0].message.contains("stale update")),
            (3, true)
        );
        assert_eq!(
            (r.bad[0].line, r.bad[0].message.contains("invalid ad id")),
            (4, true)
        );
        let strict = LoadOptions {
            strict: true,
            ..LoadOptions::default()
        };
        match db.load_text(
            "m",
            "f",
            "[Name = \"z\"]\n[Name = \"t\"; UpdateSequenceNumber = 4]",
            &strict,
        ) {
            Err(DbError::Refused { bad }) => assert_eq!(bad[0].line, 2),
            other => panic!("want refusal, got {other:?}"),
        }
        assert!(
            db.get("m", "z").expect("get").is_none(),
            "strict stores nothing"
        );
    }

    #[test]
    fn only_the_ad_with_bytes_that_are_not_utf8_is_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("latin1.ads");
        let mut bytes = b"[Name = \"a\"]\n[Name = \"caf".to_vec();
        bytes.extend([0xe9, b'"', b']', b'\n']);
        bytes.extend(b"[Name = \"c\"]\n");
        std::fs::write(&f, bytes).expect("write");
        let db = Db::open_in_memory().expect("db");
        let r = db
            .load_files("m", &[&f], &LoadOptions::default(), &mut |_| {})
            .expect("load");
        let ids: Vec<&str> = r.stored.iter().map(|a| a.put.id.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        assert_eq!((r.bad[0].line, r.bad[0].col), (2, 13), "{}", r.bad[0]);
    }

    #[test]
    fn strict_refuses_malformed_input_whole() {
        let (db, r) = load("[Name = \"a\"]\n[Name = ]", true);
        assert!(matches!(r, Err(DbError::Refused { .. })));
        assert_eq!(db.count("m", None).expect("count"), 0);
        let (db, r) = load("[Name = \"a\"]\n[Name = \"b\"]", true);
        assert_eq!(r.expect("load").stored.len(), 2);
        assert_eq!(db.count("m", None).expect("count"), 2);
    }
}
