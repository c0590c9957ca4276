module svcscittcheck

go 1.19

require (
	github.com/fxamacker/cbor/v2 v2.4.0
	golang.org/x/mod v0.7.0
)

require github.com/x448/float16 v0.8.4 // indirect

replace golang.org/x/mod => /usr/share/gocode/src/golang.org/x/mod

replace github.com/fxamacker/cbor/v2 => /usr/share/gocode/src/github.com/fxamacker/cbor

replace github.com/x448/float16 => /usr/share/gocode/src/github.com/x448/float16
