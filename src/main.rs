//! The dqview binary: parse the command line and hand over to the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    // wgpu_hal logs driver probing failures as errors; dqview reports a missing adapter itself.
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal=off,wgpu_core=error"),
    )
    .init();
    let cli = dqview::cli::Cli::parse();
    match dqview::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            if let Some(exit) = e.downcast_ref::<dqview::cli::Exit>() {
                if !exit.message.is_empty() {
                    eprintln!("dqview: {}", exit.message);
                }
                return std::process::ExitCode::from(exit.code);
            }
            eprintln!("dqview: {}", dqview::report::error_message(&e));
            std::process::ExitCode::FAILURE
        }
    }
}
