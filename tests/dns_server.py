"""A DNS server of a test's own, on UDP at 127.0.0.1: it answers A queries
for the names it is given with their addresses (several each, as a name in
front of a fleet of replicas has), and every other query with no answer.
Enough for gRPC's resolvers (C-core's c-ares, grpc-js's Node resolver)
pointed at it by a target's authority: dns://127.0.0.1:PORT/NAME:PORT.

    with DnsServer({"hoard.test": ["127.0.0.1", "127.0.0.2"]}) as dns:
        target = f"dns://127.0.0.1:{dns.port}/hoard.test:50051"
"""
import socket
import struct
import threading


class DnsServer:
    def __init__(self, names):
        self.names = {name.lower().rstrip("."): addresses for name, addresses in names.items()}
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.queries = []  # (name, type) as asked

    def __enter__(self):
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def __exit__(self, *_):
        self.socket.close()

    def _serve(self):
        while True:
            try:
                query, client = self.socket.recvfrom(512)
            except OSError:
                return
            try:
                self.socket.sendto(self._answer(query), client)
            except (OSError, struct.error, IndexError):
                continue

    def _answer(self, query):
        ident, _flags, questions = struct.unpack(">HHH", query[:6])
        # The first question: its name's labels, then type and class.
        at, labels = 12, []
        while query[at]:
            labels.append(query[at + 1:at + 1 + query[at]].decode("ascii", "replace"))
            at += 1 + query[at]
        at += 1
        qtype, qclass = struct.unpack(">HH", query[at:at + 4])
        question = query[12:at + 4]
        name = ".".join(labels).lower()
        self.queries.append((name, qtype))
        addresses = self.names.get(name, []) if qtype == 1 and qclass == 1 else []
        known = name in self.names
        flags = 0x8180 if known else 0x8183  # a response, recursion; NXDOMAIN if unknown
        header = struct.pack(">HHHHHH", ident, flags, 1 if questions else 0, len(addresses), 0, 0)
        answers = b"".join(
            struct.pack(">HHHIH", 0xC00C, 1, 1, 1, 4) + socket.inet_aton(address)
            for address in addresses)
        return header + question + answers
