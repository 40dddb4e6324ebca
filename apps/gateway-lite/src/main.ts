#!/usr/bin/env node
import { bootGateway } from "@svc/core/boot";
import { composeLite } from "./app.js";

await bootGateway({ build: "lite", argv: process.argv.slice(2), compose: composeLite });
