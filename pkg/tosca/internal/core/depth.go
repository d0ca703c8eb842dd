package core

// MaxValueDepth bounds recursion through nested data types and schemas
// (recursive data type definitions are legal).
const MaxValueDepth = 64

// MaxDerivationDepth bounds derivation chains (the normative ones are under
// ten deep); longer chains are an input crafted to be slow.
const MaxDerivationDepth = 256
