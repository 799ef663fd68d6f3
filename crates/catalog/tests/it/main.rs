//! Integration tests of the catalog: importers on hand-written specs and on
//! the real benchmark data in `../shared/data`.

mod bad_input;
mod data;
mod openapi;
mod real_data;
mod store;
