//! The desktop app's entry point: everything happens in `sentient_desktop::run`.

// No console window behind the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    sentient_desktop::run();
}
