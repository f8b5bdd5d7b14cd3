//! adjoin-storage (being written).
