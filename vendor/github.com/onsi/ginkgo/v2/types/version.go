package types

const VERSION = "2.27.5"
