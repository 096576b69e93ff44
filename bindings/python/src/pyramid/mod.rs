//! Engine 2, the test pyramid: layer results and quality signals (`signal`), the exit
//! decision (`exit`), speculation (`speculation`), the layers a caller gives (`layers`),
//! results (`result`), the step API (`run`; the run loops are a few lines of Python over
//! it in `earlyexit._controller`), and the batch replay (`replay`) and risk-bounded policy
//! (`policy`).

pub mod exit;
pub mod junit;
pub mod layers;
pub mod model;
pub mod policy;
pub mod replay;
pub mod result;
pub mod run;
pub mod signal;
pub mod speculation;
