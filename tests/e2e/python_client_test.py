#!/usr/bin/env python3
"""End to end from Python: proof the API serves other languages.

Generates Python stubs from proto/ at test time (grpc_tools.protoc), starts
rgfx-server on an ephemeral port with validation on, and drives it with
python3-grpcio only: catalog, device info, a PNG through
examples/graphs/blur.json, a bad parameter, then SIGTERM and exit code 0.
"""
import argparse
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib


def make_png(width, height):
    rows = b"".join(b"\x00" + bytes((x * 7 + y * 3 + c * 50) & 255
                                    for x in range(width) for c in range(3))
                    for y in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))

    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--proto_dir", required=True)
    parser.add_argument("--graph", required=True)
    args = parser.parse_args()

    out = tempfile.mkdtemp(prefix="rgfx_py_")
    from grpc_tools import protoc
    protos = ["rgfx/v1/image.proto", "rgfx/v1/passes.proto", "rgfx/v1/graph.proto",
              "rgfx/v1/post_process.proto"]
    if protoc.main(["protoc", "-I" + args.proto_dir, "--python_out=" + out,
                    "--grpc_python_out=" + out] + protos) != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, out)
    import grpc
    from google.protobuf import json_format
    from rgfx.v1 import post_process_pb2 as pb, post_process_pb2_grpc as pb_grpc
    from rgfx.v1 import image_pb2

    server = subprocess.Popen([args.server, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                               "--validation", "--workers=1"], stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in server.stderr:
            sys.stderr.write(line)
            m = re.search(r"serving .*port=(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        assert port, "the server did not report its port"
        channel = grpc.insecure_channel("127.0.0.1:%d" % port)
        stub = pb_grpc.PostProcessStub(channel)

        catalog = stub.ListPasses(pb.ListPassesRequest(), timeout=30)
        names = [p.name for p in catalog.passes]
        assert "gaussian_blur" in names and "import" not in names, names

        info = stub.GetDeviceInfo(pb.GetDeviceInfoRequest(), timeout=30)
        assert info.name and info.validation, info

        request = pb.ProcessRequest(id="py-1")
        with open(args.graph) as f:
            json_format.Parse(f.read(), request.graph)
        request.inputs.add(name="image", encoding=image_pb2.IMAGE_ENCODING_PNG,
                           data=make_png(48, 32))
        response = stub.Process(request, timeout=120)
        assert response.id == "py-1"
        assert len(response.outputs) == 1
        png = response.outputs[0].data
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (48, 32)
        # "pass" is a Python keyword: the generated field is reached by getattr.
        assert any(getattr(p, "pass") == "blur" for p in response.passes)

        request.graph.passes[0].gaussian_blur.radius = -1
        try:
            stub.Process(request, timeout=60)
            raise AssertionError("a negative radius was accepted")
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e
            assert "radius" in e.details(), e.details()
        channel.close()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            _, rest = server.communicate(timeout=60)
            sys.stderr.write(rest)
        except subprocess.TimeoutExpired:
            server.kill()
            sys.exit("the server did not stop within 60 s of SIGTERM")
    assert server.returncode == 0, "exit code %d after SIGTERM" % server.returncode
    print("python client: OK")


if __name__ == "__main__":
    main()
