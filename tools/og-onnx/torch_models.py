#!/usr/bin/python3
"""Exports a spread of real architectures to ONNX with random weights, offline, from Debian's
PyTorch (python3-torch, python3-torchvision, python3-torchaudio): CNNs, vision transformers,
speech transformers, segmentation, detection, a BERT-like encoder and an LLM-style decoder.
Small inputs and, where the architecture takes them, small hidden sizes keep the files and the
export time modest.

    torch_models.py OUTDIR [--only NAME,...] [--llm-layers N] [--list]

Writes OUTDIR/NAME.onnx for each model (an existing file is kept: the export is cached, until
this script or PyTorch's version changes, which OUTDIR/export.stamp records) and
OUTDIR/models.txt, one line per model: `NAME FILE INPUT_KIND D0 D1 ...` (INPUT_KIND is `float`,
or `int64:V` for token ids below V). A model whose export fails is listed in
OUTDIR/failed.txt with the reason, and the script goes on. Exit status 0 when every model
asked for was exported, 1 otherwise, 77 when PyTorch is not installed.
"""
import argparse
import hashlib
import math
import os
import sys
import traceback

try:
    import torch
    from torch import nn
except ImportError as e:  # the caller reports the test as skipped
    print(f"SKIPPED: PyTorch is not installed ({e}); apt-get install python3-torch python3-torchvision python3-torchaudio")
    sys.exit(77)


# ---- models built here (architectures users run that the packages do not ship) ----------------

class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x):
        f = x.to(torch.float32)
        return self.weight * (f * torch.rsqrt(f.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Rotary(nn.Module):
    """Rotary position embedding tables for positions 0..t-1 (computed from the sequence length:
    shape arithmetic in the export), as each attention layer of a LLaMA-style model makes them."""

    def __init__(self, head_dim, base=10000.0):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim)))

    def forward(self, x, position_ids):
        inv_freq = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv_freq @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)


class DecoderLayer(nn.Module):
    """A LLaMA-style block: RMSNorm, grouped-query attention with rotary position embedding and a
    causal mask, RMSNorm, SiLU-gated MLP; residuals around both."""

    def __init__(self, dim, heads, kv_heads, hidden):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.attn_norm = RMSNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, kv_heads * self.head_dim)
        self.v = nn.Linear(dim, kv_heads * self.head_dim)
        self.o = nn.Linear(dim, dim, bias=False)
        self.rotary = Rotary(self.head_dim)
        self.mlp_norm = RMSNorm(dim)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def repeat_kv(self, x):
        b, h, t, d = x.shape
        rep = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, h, rep, t, d).reshape(b, h * rep, t, d)

    def forward(self, x, mask, position_ids, past=None):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, t, -1, self.head_dim).transpose(1, 2)
        k = self.k(h).view(b, t, -1, self.head_dim).transpose(1, 2)
        v = self.v(h).view(b, t, -1, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary(v, position_ids)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past is not None:  # the keys and values of the positions before
            k, v = torch.cat((past[0], k), dim=2), torch.cat((past[1], v), dim=2)
        present = (k, v)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim)
        scores = scores + mask[:, :, :, : k.shape[-2]]
        a = torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v
        x = x + self.o(a.transpose(1, 2).reshape(b, t, -1))
        h = self.mlp_norm(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h)), present


class Decoder(nn.Module):
    """Token ids to next-token logits through `layers` DecoderLayers, as an LLM serves a prompt
    in two chunks: the first half fills a KV cache, the second half attends to the cache and to
    itself. Exported with a dynamic batch and sequence length (as LLMs are): the rotary tables,
    the views, the chunks and the causal masks come from the input's shape."""

    def __init__(self, vocab=256, dim=64, heads=4, kv_heads=2, hidden=128, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, heads, kv_heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def chunk(self, ids, start, cache):
        """The layers over ids at positions start.., after the cached ones (cache: a (keys,
        values) per layer, or None); returns the hidden states and the cache with these."""
        b, n = ids.shape
        x = self.embed(ids)
        total = start + n
        mask = torch.full((n, total), torch.finfo(x.dtype).min).triu(start + 1)[None, None].expand(b, 1, n, total)
        position_ids = torch.arange(start, total)[None].expand(b, n)
        present = []
        for k, layer in enumerate(self.layers):
            x, kv = layer(x, mask, position_ids, cache[k] if cache else None)
            present.append(kv)
        return x, present

    def forward(self, ids):
        half = ids.shape[1] // 2
        _, cache = self.chunk(ids[:, :half], 0, None)
        x, _ = self.chunk(ids[:, half:], half, cache)
        return self.head(self.norm(x))


class YoloStyle(nn.Module):
    """A YOLO-style detector: Conv-BN-SiLU backbone with CSP-like splits, an upsampling neck
    (Resize from the feature map's shape) and a head whose box and class parts are split."""

    def __init__(self, classes=8, width=16):
        super().__init__()

        def cbs(i, o, s=1):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.SiLU())

        self.stem = cbs(3, width, 2)
        self.c2 = cbs(width, 2 * width, 2)
        self.c3 = cbs(2 * width, 4 * width, 2)
        self.csp = cbs(2 * width, 2 * width)
        self.c4 = cbs(4 * width, 4 * width, 2)
        self.fuse = cbs(8 * width, 4 * width)
        self.heads = nn.ModuleList(nn.Conv2d(4 * width, 4 + classes, 1) for _ in range(2))
        self.classes = classes

    def forward(self, x):
        x = self.c3(self.c2(self.stem(x)))
        a, b = x.split(x.shape[1] // 2, dim=1)
        p3 = torch.cat((a, self.csp(b)), 1)
        p4 = self.c4(p3)
        up = nn.functional.interpolate(p4, size=p3.shape[2:], mode="nearest")
        p3 = self.fuse(torch.cat((p3, up), 1))
        outs = []
        for head, f in zip(self.heads, (p3, p4)):
            y = head(f).flatten(2)
            box, cls = y.split((4, self.classes), 1)
            outs.append(torch.cat((box, cls.sigmoid()), 1))
        return torch.cat(outs, 2)


class Outputs(nn.Module):
    """A model whose result is a dict or a tuple, reduced to the tensor named `key`."""

    def __init__(self, model, key):
        super().__init__()
        self.model, self.key = model, key

    def forward(self, x):
        return self.model(x)[self.key]


# ---- the spread -------------------------------------------------------------------------------

def torchvision_models():
    import torchvision.models as tv
    from torchvision.models import segmentation as seg, swin_transformer, convnext

    return {
        "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(), [1, 3, 64, 64], 13),
        "resnet18": (lambda: tv.resnet18(), [1, 3, 64, 64], 13),
        "efficientnet_b0": (lambda: tv.efficientnet_b0(), [1, 3, 64, 64], 13),
        # ViT-B/16's architecture at a small width and depth (the class takes them).
        "vit_16": (lambda: tv.VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4,
                                                hidden_dim=64, mlp_dim=128, num_classes=10), [1, 3, 64, 64], 17),
        # Swin-T's architecture at a small width; 64x64 needs window padding (shape arithmetic).
        "swin": (lambda: swin_transformer.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2, 2, 2],
                                                          num_heads=[1, 2, 4, 8], window_size=[7, 7], num_classes=10),
                 [1, 3, 64, 64], 17),
        "convnext": (lambda: convnext.ConvNeXt([convnext.CNBlockConfig(16, 32, 1), convnext.CNBlockConfig(32, 64, 1),
                                                convnext.CNBlockConfig(64, None, 1)], layer_scale=0.5, num_classes=10),
                     [1, 3, 64, 64], 13),
        "lraspp_mobilenet_v3": (lambda: Outputs(seg.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=4), "out"),
                                [1, 3, 64, 64], 13),
        "deeplabv3_mobilenet_v3": (lambda: Outputs(seg.deeplabv3_mobilenet_v3_large(weights_backbone=None, num_classes=4), "out"),
                                   [1, 3, 64, 64], 13),
    }


def torchaudio_models():
    from torchaudio import models as ta

    def wav2vec2(**kw):
        return Outputs(ta.wav2vec2_model(
            extractor_mode="group_norm", extractor_conv_layer_config=[(32, 10, 5), (32, 3, 2), (32, 2, 2)],
            extractor_conv_bias=False, encoder_embed_dim=64, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=16,
            encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4, encoder_attention_dropout=0.0,
            encoder_ff_interm_features=128, encoder_ff_interm_dropout=0.0, encoder_dropout=0.0,
            encoder_layer_drop=0.0, aux_num_out=None, **kw), 0)

    class ConformerFixedLength(nn.Module):
        """torchaudio's Conformer on features of one utterance (its lengths: the whole input)."""

        def __init__(self):
            super().__init__()
            self.m = ta.Conformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2, depthwise_conv_kernel_size=7)

        def forward(self, x):
            lengths = torch.full((x.shape[0],), x.shape[1], dtype=torch.int64)
            return self.m(x, lengths)[0]

    return {
        "wav2vec2": (lambda: wav2vec2(encoder_layer_norm_first=False), [1, 1600], 13),
        "hubert_style": (lambda: wav2vec2(encoder_layer_norm_first=True), [1, 1600], 17),
        "conformer": (lambda: ConformerFixedLength(), [1, 20, 32], 17),
    }


def other_models(llm_layers):
    return {
        "transformer_encoder": (lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, activation="gelu",
                                       batch_first=True), num_layers=2), [1, 16, 64], 13),
        "yolo_style": (lambda: YoloStyle(), [1, 3, 64, 64], 13),
        "llm_decoder": (lambda: Decoder(layers=llm_layers), [1, 16], 14, "int64:256", {"x": {0: "batch", 1: "sequence"}}),
    }


def detection_models():
    from torchvision.models import detection

    class SSDLiteHead(nn.Module):
        """SSDLite's backbone and head (box regression and class logits per anchor); its
        post-processing (score threshold, NMS) gives data-dependent shapes and is left out."""

        def __init__(self):
            super().__init__()
            m = detection.ssdlite320_mobilenet_v3_large(weights_backbone=None, num_classes=4)
            self.backbone, self.head = m.backbone, m.head

        def forward(self, x):
            out = self.head(list(self.backbone(x).values()))
            return torch.cat((out["bbox_regression"], out["cls_logits"]), -1)

    return {"ssdlite320": (lambda: SSDLiteHead(), [1, 3, 128, 128], 13)}


def export(name, build, dims, opset, kind, dynamic, path):
    torch.manual_seed(0)
    model = build().eval()
    # Batch-norm statistics other than 0 and 1, so that folding them is visible in the results;
    # no parameter all zeros (ViT's head and many biases start so: they would hide the layers).
    with torch.no_grad():
        for p in model.parameters():
            if not p.any():
                p.normal_(0.0, 0.05)
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    if kind.startswith("int64:"):
        example = torch.randint(0, int(kind[6:]), dims, dtype=torch.int64)
    else:
        example = torch.rand(*dims)
    # Gradients stay enabled: under no_grad, nn.MultiheadAttention takes a fused path that the
    # exporter rejects.
    tmp = path + ".tmp"
    torch.onnx.export(model, (example,), tmp, opset_version=opset, input_names=["x"], output_names=["y"],
                      do_constant_folding=True, dynamic_axes=dynamic)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--llm-layers", type=int, default=2, help="decoder layers of llm_decoder (24 exceed 10,000 nodes)")
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    args = ap.parse_args()

    table = {}
    for group in (torchvision_models, torchaudio_models, detection_models):
        try:
            table.update(group())
        except ImportError as e:
            print(f"{group.__name__}: not available ({e})", file=sys.stderr)
    table.update(other_models(args.llm_layers))
    if args.list:
        print("\n".join(table))
        return 0
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in table]
    if unknown:
        print(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(table)}", file=sys.stderr)
        return 2
    os.makedirs(args.outdir, exist_ok=True)
    # A changed script or PyTorch makes other models: the cached ones (and their QDQ versions) go.
    with open(os.path.abspath(__file__), "rb") as f:
        stamp = hashlib.sha256(f.read() + torch.__version__.encode()).hexdigest()
    stamp_file = os.path.join(args.outdir, "export.stamp")
    old = open(stamp_file).read().strip() if os.path.exists(stamp_file) else ""
    if old != stamp:
        for f in os.listdir(args.outdir):
            if f.endswith((".onnx", ".step")):
                os.remove(os.path.join(args.outdir, f))
        with open(stamp_file, "w") as f:
            f.write(stamp + "\n")
    lines, failed = [], []
    for name, entry in table.items():
        if only and name not in only:
            continue
        build, dims, opset = entry[:3]
        kind = entry[3] if len(entry) > 3 else "float"
        dynamic = entry[4] if len(entry) > 4 else None
        file = f"{name}.onnx" if name != "llm_decoder" else f"llm_decoder_{args.llm_layers}l.onnx"
        path = os.path.join(args.outdir, file)
        if not os.path.exists(path):
            try:
                export(name, build, dims, opset, kind, dynamic, path)
                print(f"exported {file}", file=sys.stderr)
            except Exception as e:  # noqa: BLE001 (any exporter failure is reported, the rest go on)
                reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                failed.append(f"{name} {reason}")
                print(f"{name}: export failed: {reason}", file=sys.stderr)
                if os.environ.get("OG_TORCH_MODELS_TRACE"):
                    traceback.print_exc()
                continue
        lines.append(" ".join([name, file, kind] + [str(d) for d in dims]))
    with open(os.path.join(args.outdir, "models.txt"), "w") as f:
        f.write("".join(line + "\n" for line in lines))
    with open(os.path.join(args.outdir, "failed.txt"), "w") as f:
        f.write("".join(line + "\n" for line in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
