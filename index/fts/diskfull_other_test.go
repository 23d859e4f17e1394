//go:build !linux

package fts

func diskFullChild() bool { return false }
