//! Integration tests of the dump reader on the bundled samples and on generated damage.
mod decoder;
mod lang;
mod reader;
mod site;
mod support;
