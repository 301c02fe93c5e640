//! The web page, its scripts and its style, compiled into the binary so that
//! `ply serve` needs no files beside it.

use axum::http::header;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("web/index.html");
const STYLE: &str = include_str!("web/style.css");

/// The page's script modules, by file name.
pub const MODULES: [(&str, &str); 5] = [
    ("app.js", include_str!("web/app.js")),
    ("api.js", include_str!("web/api.js")),
    ("board.js", include_str!("web/board.js")),
    ("chart.js", include_str!("web/chart.js")),
    ("svg.js", include_str!("web/svg.js")),
];

/// `GET /`: the page.
pub async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX)
}

/// `GET /NAME.js`: one of the page's script modules.
pub async fn script(text: &'static str) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        text,
    )
}

/// `GET /style.css`: the page's style.
pub async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}
