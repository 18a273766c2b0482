//! The weather app: Open-Meteo without a key, AccuWeather while it is connected.

pub mod accuweather;
pub mod open_meteo;
pub mod shapes;
pub mod tools;
