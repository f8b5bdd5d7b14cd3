//! adjoin-index (being written).
