//! The ClassAd language: parse, print, evaluate, specialize.
//!
//! ```
//! use adjoin_query::{parse, eval::{symmetric_match, EvalOptions}};
//! let job = parse::classad(r#"[Requirements = TARGET.Memory >= 1024; ImageSize = 100]"#).unwrap();
//! let slot = parse::classad(r#"[Memory = 2048; Requirements = TARGET.ImageSize < 500]"#).unwrap();
//! assert!(symmetric_match(&job, &slot, &EvalOptions::default()));
//! ```
#![deny(missing_docs)]

pub mod ast;
pub mod build;
mod calendar;
pub mod classad;
pub mod error;
pub mod eval;
pub mod functions;
pub mod name;
pub mod parse;
pub mod print;
pub mod refs;
pub mod specialize;
pub mod structural;
mod text;
pub mod value;

pub use ast::{BinOp, Expr, UnOp};
pub use build::AdBuilder;
pub use classad::ClassAd;
pub use error::ParseError;
pub use eval::{EvalOptions, Evaluator};
pub use name::{Key, Name};
pub use value::{AbsTime, Val, Value};
