//! A private X server (Xvfb on a free display) and a child process killed when dropped; shared by
//! `tests/viewer_on_demand.rs` and `benches/viewer_frames.rs` (which includes this file by path).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Kills the child when dropped (a failed assertion must not leave an X server running).
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts Xvfb on a free display with a screen of `size` (`WxH`); returns it and `:N`.
pub fn start_xvfb(size: &str) -> (Killed, String) {
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            &format!("{size}x24"),
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb (apt-get install xvfb)");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("Xvfb stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("Xvfb prints its display number");
    (Killed(child), format!(":{}", line.trim()))
}
