package store

// MaxProblems bounds how many problems of one kind a driver's
// CheckInvariants names: the first twenty say what is wrong, and a
// database broken in a thousand places does not print a thousand lines.
const MaxProblems = 20
