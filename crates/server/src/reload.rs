//! Publishing new game data to the running server. `tapster import`, or the follower of published
//! generations (`published`), renames a complete new database over the served one; the upkeep thread polls the file's stamp, and once a new stamp has held
//! still for one poll (a file being copied in by hand keeps changing), opens it with SQLite's
//! structural check and hands it to the [`App`], which serves it from the next request on with an
//! empty response cache. A file that fails to open is reported once and never served; the server
//! keeps the data it has until a good file appears.

use std::path::{Path, PathBuf};

use tapster_http::App;
use tapster_store::{FileStamp, Store};

/// What one poll of the data dir did.
#[derive(Debug)]
pub(crate) enum Reload {
    /// New data is served from now on.
    Published(Store),
    /// The data dir holds a file that could not be opened; the data served before stays.
    Refused(tapster_store::Error),
}

/// Watches the game database of one data dir for new data.
#[derive(Debug)]
pub(crate) struct Reloader {
    data_dir: PathBuf,
    /// The file the served store was read from.
    served: FileStamp,
    /// A new stamp seen at the last poll, to be read if it is still the same at the next one.
    settling: Option<FileStamp>,
    /// A stamp whose file was refused, so that it is reported once, not at every poll.
    refused: Option<FileStamp>,
}

impl Reloader {
    pub(crate) fn new(data_dir: &Path, served: &Store) -> Self {
        Self { data_dir: data_dir.to_owned(), served: served.stamp(), settling: None, refused: None }
    }

    /// Looks at the data dir once, and publishes its data to `app` when it is new, whole and settled.
    pub(crate) fn poll(&mut self, app: &App) -> Option<Reload> {
        // A data dir whose database is briefly missing (being moved by hand) is not new data yet.
        let now = FileStamp::of_data_dir(&self.data_dir).ok()?;
        if now == self.served || Some(now) == self.refused {
            self.settling = None;
            return None;
        }
        if self.settling != Some(now) {
            self.settling = Some(now);
            return None;
        }
        self.settling = None;
        match Store::open_verified(&self.data_dir) {
            Ok(store) => {
                self.served = store.stamp();
                self.refused = None;
                app.publish(store.clone());
                Some(Reload::Published(store))
            }
            Err(error) => {
                self.refused = Some(now);
                Some(Reload::Refused(error))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tapster_http::{Admission, CallingKey, Credentials, Gate, Quota, Verdict};
    use tapster_store::{GAME_DB, import};
    use tapster_test_support::{DataDir, mini};

    use super::*;

    #[derive(Debug)]
    struct Open;

    impl Gate for Open {
        fn admit(&self, _: std::net::IpAddr, _: &Credentials, _: Option<&str>) -> Verdict {
            let key = CallingKey { prefix: String::new(), name: String::new(), expires_at: None };
            Ok(Admission {
                key: key.into(),
                quota: Quota::default(),
                requests_today: 0,
                allowed_origin: None,
            })
            .into()
        }
    }

    fn latest(app: &App) -> String {
        app.store().latest().info.name.to_string()
    }

    #[test]
    fn a_new_import_is_published_once_it_has_held_still_for_a_poll() {
        let dir = DataDir::with(&mini().join("v1.0.0.0.1"));
        let store = Store::open(dir.path()).unwrap();
        let mut reloader = Reloader::new(dir.path(), &store);
        let app = App::new(store, Open);
        assert!(reloader.poll(&app).is_none(), "nothing changed");

        import(dir.path(), &mini().join("v1.0.1.0.0")).unwrap();
        assert!(reloader.poll(&app).is_none(), "a new file waits one poll");
        assert_eq!(latest(&app), "v1.0.0.0.1");
        assert!(matches!(reloader.poll(&app), Some(Reload::Published(_))));
        assert_eq!(latest(&app), "v1.0.1.0.0");
        assert!(reloader.poll(&app).is_none(), "published data is not published again");
    }

    #[test]
    fn a_damaged_file_is_reported_once_and_the_served_data_stays() {
        let dir = DataDir::mini();
        let store = Store::open(dir.path()).unwrap();
        let mut reloader = Reloader::new(dir.path(), &store);
        let app = App::new(store, Open);

        let path = dir.path().join(GAME_DB);
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        assert!(reloader.poll(&app).is_none());
        assert!(matches!(reloader.poll(&app), Some(Reload::Refused(_))));
        assert!(reloader.poll(&app).is_none(), "the same file is not reported again");
        assert_eq!(latest(&app), "v1.0.1.0.0");

        // The rest of the copy arrives: the whole file is served.
        std::fs::write(&path, &whole).unwrap();
        let mut published = false;
        for _ in 0..3 {
            published |= matches!(reloader.poll(&app), Some(Reload::Published(_)));
        }
        assert!(published, "the completed file was not published");
    }
}
