//! A PostgreSQL server of a test's own that speaks only TLS, as managed databases do: Debian's
//! `initdb` and `postgres` (run as the `postgres` user when the tests run as root, which PostgreSQL
//! refuses to be, and as the tests' own user otherwise) on a free port of 127.0.0.1, with a server
//! certificate for `localhost` signed by a [`TestCa`] of the test's own, and `hostssl` lines alone in
//! `pg_hba.conf`, so that a connection in plain text is refused. The user `tapster_cert` must also
//! show a client certificate signed by the same authority. Stopped, and its files removed, when
//! dropped.
//!
//! Like the machine's PostgreSQL, a test finds `None` where the binaries are not installed, reported
//! as a skip, and fails instead where `TAPSTER_TEST_REQUIRE_SERVICES` is set ([`crate::services`]).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::services::missing;
use crate::tls::{Issued, TestCa};

/// The user that must show a client certificate.
pub const CERT_USER: &str = "tapster_cert";

/// A running PostgreSQL that accepts TLS only.
#[derive(Debug)]
pub struct TlsPostgres {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
    /// The authority that signed the server's certificate, and signs clients' certificates.
    pub ca: TestCa,
}

impl TlsPostgres {
    /// Starts one; `None` (reported as a skip) where PostgreSQL's server binaries are not installed and
    /// the services are not required.
    pub fn start() -> Option<Self> {
        let Some(bin) = server_binaries() else {
            let why = "no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql)";
            missing("a PostgreSQL server of the test's own", "this machine", why);
            return None;
        };
        let owner = Owner::find();
        let dir = tempfile::TempDir::new().expect("a directory for PostgreSQL");
        // The server's user owns its files (and must reach them).
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the data directory");
        run(Command::new("chmod").arg("755").arg(dir.path()));
        owner.give(&data);
        run(owner
            .command(&bin.join("initdb"))
            .args(["--auth=trust", "--no-sync", "--username=postgres", "--encoding=UTF8", "-D"])
            .arg(&data));

        let ca = TestCa::new("Tapster test CA");
        let server = ca.issue(&["localhost"]);
        owner.write(&data.join("server.crt"), &server.cert_pem);
        owner.write(&data.join("server.key"), &server.key_pem);
        owner.write(&data.join("root.crt"), &ca.cert_pem());
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let config = format!(
            "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{data}'\n\
             ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\nssl_ca_file = 'root.crt'\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n",
            data = data.display()
        );
        append(&data.join("postgresql.conf"), &config);
        // TLS only over TCP; the certificate user must show a certificate as well.
        let hba = format!(
            "local all all trust\n\
             hostssl all {CERT_USER} 127.0.0.1/32 trust clientcert=verify-full\n\
             hostssl all all 127.0.0.1/32 trust\n"
        );
        owner.write(&data.join("pg_hba.conf"), &hba);

        // Started as the server itself (not through a wrapper), so that killing the child stops it.
        let child = owner
            .command(&bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting postgres");
        let server = Self { child, port, dir, ca };
        let started = Instant::now();
        while TcpStream::connect(server.addr()).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "postgres did not listen within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        run(owner
            .command(&bin.join("psql"))
            .args(["-q", "-h"])
            .arg(&data)
            .args(["-p", &port.to_string(), "-d", "postgres", "-c"])
            .arg(format!("CREATE ROLE {CERT_USER} LOGIN SUPERUSER")));
        Some(server)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// A URL of the `postgres` database as `user`, at `host` (`localhost`, which the certificate
    /// names, or `127.0.0.1`, which it does not), with `query` (the TLS parameters).
    pub fn url(&self, user: &str, host: &str, query: &str) -> String {
        format!("postgres://{user}@{host}:{}/postgres?{query}", self.port)
    }

    /// Writes `pem` into a file of this server's directory, for a URL to name.
    pub fn file(&self, name: &str, pem: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, pem).expect("writing a PEM file");
        path
    }

    /// The CA's certificate in a file: what `sslrootcert` names.
    pub fn root_cert(&self) -> PathBuf {
        self.file("ca.pem", &self.ca.cert_pem())
    }

    /// A client certificate for [`CERT_USER`] signed by the CA, and its key, in files.
    pub fn client_cert(&self) -> (PathBuf, PathBuf) {
        let Issued { cert_pem, key_pem } = self.ca.issue(&[CERT_USER]);
        (self.file("client.crt", &cert_pem), self.file("client.key", &key_pem))
    }
}

impl Drop for TlsPostgres {
    fn drop(&mut self) {
        // SIGKILL: the cluster is thrown away with its directory.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The newest installed PostgreSQL's `bin` directory.
fn server_binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// Who runs the server: the `postgres` user when the tests run as root, the tests' own user
/// otherwise.
enum Owner {
    Postgres { uid: u32, gid: u32 },
    Me,
}

impl Owner {
    fn find() -> Self {
        let id = |args: &[&str]| -> Option<u32> {
            let output = Command::new("id").args(args).output().ok()?;
            std::str::from_utf8(&output.stdout).ok()?.trim().parse().ok()
        };
        match (id(&["-u"]), id(&["-u", "postgres"]), id(&["-g", "postgres"])) {
            (Some(0), Some(uid), Some(gid)) => Self::Postgres { uid, gid },
            _ => Self::Me,
        }
    }

    /// `program`, to be run as the owner.
    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        if let Self::Postgres { uid, gid } = *self {
            command.uid(uid).gid(gid);
        }
        command
    }

    /// Makes `path` the owner's.
    fn give(&self, path: &Path) {
        if let Self::Postgres { .. } = self {
            run(Command::new("chown").arg("postgres:postgres").arg(path));
        }
    }

    /// Writes a file the server reads, the owner's and readable by it alone (as PostgreSQL demands
    /// of its key).
    fn write(&self, path: &Path, contents: &str) {
        std::fs::write(path, contents).expect("writing a server file");
        self.give(path);
        run(Command::new("chmod").arg("600").arg(path));
    }
}

fn run(command: &mut Command) {
    let output = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(output.status.success(), "{command:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn append(path: &Path, contents: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).expect("opening postgresql.conf");
    file.write_all(contents.as_bytes()).expect("writing postgresql.conf");
}
