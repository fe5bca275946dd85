//! Game data is published for several replicas sharing PostgreSQL; a store in one data dir has
//! none to share, and refuses each operation the same way (its data comes by `tapster import`).

use rusqlite::Connection;
use tapster_domain::Timestamp;

use crate::error::{Error, Result};
use crate::model::{Generation, NewGeneration};

pub(crate) fn publish_generation(
    _: &mut Connection,
    _: &NewGeneration,
    _: usize,
    _: Timestamp,
) -> Result<Generation> {
    Err(Error::NotShared)
}

pub(crate) fn generations(_: &mut Connection) -> Result<Vec<Generation>> {
    Err(Error::NotShared)
}

pub(crate) fn current_generation(_: &mut Connection) -> Result<Option<Generation>> {
    Err(Error::NotShared)
}

pub(crate) fn activate_generation(_: &mut Connection, _: i64) -> Result<Generation> {
    Err(Error::NotShared)
}

pub(crate) fn generation_bytes(_: &mut Connection, _: i64) -> Result<Vec<u8>> {
    Err(Error::NotShared)
}
