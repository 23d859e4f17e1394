//go:build !linux

package fts

func diskFullChild() bool { return false }

func tmpfsChild() bool { return false }
