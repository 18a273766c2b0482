//! `sqlx::migrate!` embeds the migrations at compile time but cannot tell cargo about the
//! folder, so a new migration file alone would not rebuild the store: this says so for it.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
