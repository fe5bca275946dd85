//! nginx for tests: Debian's real reverse proxy in front of the server, as operators run it, with
//! the `server` blocks a test writes, each on a free port of 127.0.0.1; stopped when dropped.
//!
//! Like the other services, a test finds `None` where nginx is not installed, reported as a skip,
//! and fails instead where `TAPSTER_TEST_REQUIRE_SERVICES` is set ([`crate::services`]; `.ci/run`
//! installs it).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::services::missing;

/// A running nginx.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    addrs: Vec<SocketAddr>,
    dir: tempfile::TempDir,
}

impl Nginx {
    /// Starts nginx with one `server` block for each of `servers` (its directives, without
    /// `listen`), each listening on a free port of its own; `None` (reported as a skip) where nginx is not
    /// installed and the services are not required.
    pub fn start(servers: &[&str]) -> Option<Self> {
        let Some(binary) = binary() else {
            missing("nginx", "this machine", "not installed (apt-get install nginx)");
            return None;
        };
        let dir = tempfile::TempDir::new().expect("a directory for nginx");
        let mut addrs = Vec::new();
        let mut blocks = String::new();
        for server in servers {
            // A free port: bound, read and let go, for nginx to bind again.
            let addr = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port");
            blocks.push_str(&format!("    server {{\n        listen {addr};\n        {server}\n    }}\n"));
            addrs.push(addr);
        }
        let root = dir.path().display();
        // One process (`master_process off`): killing it when the test ends leaves no worker behind,
        // as killing a master does.
        let config = format!(
            "master_process off;\ndaemon off;\npid {root}/nginx.pid;\nerror_log {root}/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n    access_log off;\n    client_body_temp_path {root}/body;\n    proxy_temp_path {root}/proxy;\n\
                 fastcgi_temp_path {root}/fastcgi;\n    uwsgi_temp_path {root}/uwsgi;\n    scgi_temp_path {root}/scgi;\n\
             {blocks}}}\n"
        );
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, config).expect("writing nginx.conf");
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting nginx");
        let nginx = Self { child, addrs, dir };
        let started = Instant::now();
        while !nginx.addrs.iter().all(|addr| TcpStream::connect(addr).is_ok()) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen within 10 s: {}",
                nginx.error_log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(nginx)
    }

    /// Where the `server` block number `index` listens.
    pub fn addr(&self, index: usize) -> SocketAddr {
        self.addrs[index]
    }

    /// What nginx wrote to its error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// nginx on the `PATH`, or where Debian installs it (`/usr/sbin`, not on every user's `PATH`).
fn binary() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("nginx"));
    on_path.chain([PathBuf::from("/usr/sbin/nginx")]).find(|candidate| candidate.is_file())
}
