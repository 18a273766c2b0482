//! The maps app: OpenStreetMap (Nominatim and OSRM) without a key, Google Maps while it is
//! connected.

pub mod google_maps;
pub mod nominatim;
pub mod osrm;
pub mod shapes;
pub mod tools;
