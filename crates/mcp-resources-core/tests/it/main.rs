//! Integration tests of the core, one module per feature.
mod completion;
mod directory;
mod engine;
mod fixtures;
mod pagination;
mod policy;
mod resource;
mod sensitive;
mod service;
mod skills;
mod subscription;
mod template;
mod uri;
