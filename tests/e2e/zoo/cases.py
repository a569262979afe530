"""The model-zoo networks and training cells at small sizes, written against ``mindspore``:
under msc the zoo loader aliases it to msc; ``MSC_ZOO_REAL_MINDSPORE=1`` (set by the
MindSpore oracle's subprocess) imports the real one. Each builder takes a numpy Generator
and returns the cell and its inputs; builders construct the zoo's own classes, changing
only sizes (and, where a network hard-codes a global pool for 224-pixel images, that pool).

``FORWARD``: name -> (cell, inputs), run in inference mode (``set_train(False)``).
``TRAIN``: name -> (training cell, inputs): the zoo's loss, optimizer and train wrapper,
with dropout off so eager and graph runs see the same numbers."""

from __future__ import annotations

import types

import numpy as np

from tests.e2e.zoo import load, mindspore_as_msc

with mindspore_as_msc():
    import mindspore as ms
    from mindspore import Tensor, nn

F32 = np.float32


def _images(rng, *shape):
    return Tensor(rng.standard_normal(shape).astype(F32))


def _labels(rng, n, classes):
    return Tensor(rng.integers(0, classes, n).astype(np.int32))


class _EasyDict(dict):
    """ViT's config reads ``easydict.EasyDict`` (not a test dependency): a dict with
    attribute access, which is all it uses."""

    def __getattr__(self, key):
        return self[key]

    def __setattr__(self, key, value):
        self[key] = value


# --- builders -------------------------------------------------------------------------------

_RESNET_CONFIG = {"src.model_utils.config": {"config": types.SimpleNamespace(
    net_name="resnet18", optimizer="Momentum", dataset="cifar10")}}


def _resnet(kind):
    R = load("resnet", "src.resnet", stubs=_RESNET_CONFIG)
    if kind == "resnet18":
        return R.ResNet(R.ResidualBlockBase, [1, 1, 1, 1], [64, 8, 8, 8], [8, 8, 8, 8],
                        [1, 2, 2, 2], 5, res_base=True)
    return R.ResNet(R.ResidualBlock, [1, 1, 1, 1], [64, 16, 16, 16], [16, 16, 16, 16],
                    [1, 2, 2, 2], 5, use_se=kind == "se_resnet50")


def resnet_train(rng):
    """train.py's ResNet recipe: CrossEntropySmooth + Momentum with weight decay."""
    CE = load("resnet", "src.CrossEntropySmooth")
    net = _resnet("resnet18")
    loss = CE.CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1,
                                 num_classes=5)
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, weight_decay=1e-4)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _vgg():
    V = load("vgg16", "src.vgg")
    args = types.SimpleNamespace(pad_mode="same", initialize_mode="KaimingNormal",
                                 has_bias=True, batch_norm=True, has_dropout=False,
                                 image_size=(32, 32))
    return V.Vgg([8, "M", 8, "M", 8, "M", 8, "M", 512, "M"], num_classes=5, batch_norm=True,
                 args=args)


def _mobilenet_v2():
    M = load("mobilenetv2", "src.mobilenetV2")
    backbone = M.MobileNetV2Backbone(
        width_mult=0.25, inverted_residual_setting=[[1, 8, 1, 1], [6, 8, 2, 2], [6, 16, 1, 2]],
        input_channel=8, last_channel=32)
    head = M.MobileNetV2Head(input_channel=backbone.out_channels, num_classes=5)
    return M.mobilenet_v2(backbone, head)


def mobilenet_v2_train(rng):
    net = _mobilenet_v2()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _mobilenet_v3():
    M = load("mobilenetv3", "src.mobilenetV3")
    cfg = {"cfg": [[3, 16, 16, True, "relu", 2], [3, 24, 16, False, "hswish", 1],
                   [5, 32, 24, True, "hswish", 2]],
           "cls_ch_squeeze": 32, "cls_ch_expand": 64}
    return M.MobileNetV3(cfg, num_classes=5)


def mobilenet_v1_train(rng):
    M, CE = load("mobilenetv1", "src.mobilenet_v1", "src.CrossEntropySmooth")
    net = M.mobilenet_v1(5)
    loss = CE.CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1,
                                 num_classes=5)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _shufflenet(version):
    """ShuffleNet's 7x7 global pool assumes 224-pixel images; at 32 pixels the last map
    is 1x1, so the pool becomes a 1x1 one."""
    if version == 1:
        S = load("shufflenetv1", "src.shufflenetv1")
        net = S.ShuffleNetV1(n_class=5, model_size="0.5x", group=3)
    else:
        S = load("shufflenetv2", "src.shufflenetv2")
        net = S.ShuffleNetV2(input_size=32, n_class=5, model_size="0.5x")
    net.globalpool = nn.AvgPool2d(1)
    return net


def shufflenet_v2_train(rng):
    CE = load("shufflenetv2", "src.CrossEntropySmooth")
    net = _shufflenet(2)
    loss = CE.CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1,
                                 num_classes=5)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _inception_v3():
    """75-pixel images: the final map is 1x1 (the zoo's 8x8 pool assumes 299 pixels)."""
    I = load("inceptionv3", "src.inception_v3")  # noqa: E741
    net = I.InceptionV3(num_classes=5, is_training=False)
    net.logits.avg_pool = nn.AvgPool2d(1)
    return net


def _xception():
    X = load("xception", "src.Xception")
    net = X.xception(5)
    net.avg_pool = nn.AvgPool2d(3)  # 71-pixel images end 3x3 (the zoo's 10 assumes 299)
    return net


def _efficientnet():
    E = load("efficientnet_b0", "src.efficientnet")
    arch = [["ds_r1_k3_s1_e1_c16_se0.25"], ["ir_r1_k3_s2_e6_c24_se0.25"],
            ["ir_r1_k5_s2_e6_c40_se0.25"]]
    return E.GenEfficientNet(E._decode_arch_def(arch, 1.0), num_classes=5, stem_size=16,
                             num_features=64, bn_args=E._resolve_bn_args({}),
                             act_fn=nn.HSwish())


def efficientnet_train(rng):
    L = load("efficientnet_b0", "src.loss")
    net = _efficientnet()
    loss = L.LabelSmoothingCrossEntropy(smooth_factor=0.1, num_classes=5)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.RMSProp(net.trainable_params(), 0.01, momentum=0.9))
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _vit():
    V = load("vit", "src.vit", stubs={"easydict": {"EasyDict": _EasyDict}})
    c = V.vit_cfg
    c.d_model, c.depth, c.heads, c.mlp_dim, c.dim_head, c.patch_size = 32, 2, 4, 64, 8, 8
    c.normalized_shape, c.image_size, c.num_classes = 32, 32, 5
    config = V.VitConfig(c)
    config.network_dropout_rate = config.attention_dropout_rate = 0.0
    config.feedforward_dropout_rate = config.head_dropout_rate = 0.0
    config.body_drop_path_rate = 0.0
    return config.network(config)


def vit_train(rng):
    CE = load("vit", "src.cross_entropy")
    net = _vit()
    loss = CE.CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1,
                                 num_classes=5)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.AdamWeightDecay(net.trainable_params(), 1e-3,
                                                  weight_decay=0.05))
    return step, (_images(rng, 2, 3, 32, 32), _labels(rng, 2, 5))


def _crnn_config():
    return types.SimpleNamespace(batch_size=2, input_size=512, hidden_size=16, class_num=5)


def crnn_train(rng):
    """train.py's CRNN: CTCLoss over the width-7 sequence, TrainOneStepCellWithGradClip."""
    C, L, T = load("crnn", "src.crnn", "src.loss", "src.crnn_for_train")
    net = C.CRNNV2(_crnn_config())
    loss = L.CTCLoss(max_sequence_length=7, max_label_length=3, batch_size=2)
    step = T.TrainOneStepCellWithGradClip(nn.WithLossCell(net, loss),
                                          nn.SGD(net.trainable_params(), 0.05, momentum=0.9))
    return step, (_images(rng, 2, 3, 32, 32),
                  Tensor(rng.integers(1, 5, (2, 3)).astype(np.int32)))


def _edsr():
    E = load("edsr", "src.edsr")
    return E.EDSR(scale=2, n_feats=8, kernel_size=3, n_resblocks=2)


def edsr_train(rng):
    net = _edsr()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.L1Loss()),
                               nn.Adam(net.trainable_params(), 1e-3))
    return step, (Tensor((rng.random((1, 3, 8, 8)) * 255).astype(F32)),
                  Tensor((rng.random((1, 3, 16, 16)) * 255).astype(F32)))


def _pointnet():
    """PointNet without the feature transform: with it the zoo's network multiplies the
    64-channel features by the 3x3 input transform and fails under MindSpore too."""
    P = load("pointnet", "src.network")
    return P.PointNetDenseCls(k=4, feature_transform=False)


def pointnet_train(rng):
    L = load("pointnet", "src.loss")
    net = _pointnet()
    loss = L.PointnetLoss(feature_transform=False, num_class=4)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Adam(net.trainable_params(), 1e-3))
    return step, (_images(rng, 2, 3, 32), Tensor(rng.integers(1, 5, (2, 32)).astype(np.int32)))


def _dcgan():
    W = load("wgan", "src.dcgan_model")
    return W.DcganG(16, 8, 3, 8), W.DcganD(16, 8, 3, 8)


def wgan_train_d(rng):
    W = load("wgan", "src.cell")
    netG, netD = _dcgan()
    opt = nn.RMSProp(netD.trainable_params(), 5e-3)
    step = W.DisTrainOneStepCell(netG, netD, opt, -0.01, 0.01)
    return step, (_images(rng, 2, 3, 16, 16), _images(rng, 2, 8, 1, 1))


def wgan_train_g(rng):
    W = load("wgan", "src.cell")
    netG, netD = _dcgan()
    opt = nn.RMSProp(netG.trainable_params(), 5e-3)
    return W.GenTrainOneStepCell(netG, netD, opt), (_images(rng, 2, 8, 1, 1),)


def _sentiment_lstm(rng):
    """SentimentNet reads positions 0 and 499: its sequences are 500 long."""
    L = load("lstm", "src.lstm")
    table = Tensor(rng.standard_normal((20, 8)).astype(F32))
    return L.SentimentNet(20, 8, 8, 1, True, 2, table, 2)


def _bert_config():
    BM = load("bert", "src.bert_model")
    return BM.BertConfig(seq_length=8, vocab_size=32, hidden_size=16, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=32, hidden_dropout_prob=0.0,
                         attention_probs_dropout_prob=0.0, max_position_embeddings=16,
                         type_vocab_size=2)


def _bert_inputs(rng):
    """(input_ids, input_mask, token_type_id, next_sentence_labels, masked_lm_positions,
    masked_lm_ids, masked_lm_weights) for a batch of two 8-token sequences, the second
    padded after 6 tokens."""
    mask = np.ones((2, 8), np.int32)
    mask[1, 6:] = 0
    return (Tensor(rng.integers(0, 32, (2, 8)).astype(np.int32)), Tensor(mask),
            Tensor(np.zeros((2, 8), np.int32)), Tensor(np.array([[0], [1]], np.int32)),
            Tensor(np.array([[1, 3], [2, 5]], np.int32)),
            Tensor(rng.integers(0, 32, (2, 2)).astype(np.int32)),
            Tensor(np.array([[1, 1], [1, 0]], F32)))


def bert_train(rng):
    """run_pretrain.py's BertTrainOneStepCell (global-norm clipping) with AdamWeightDecay
    (its Lamb has no CPU kernel in MindSpore)."""
    BP = load("bert", "src.bert_for_pre_training")
    net = BP.BertNetworkWithLoss(_bert_config(), True)
    step = BP.BertTrainOneStepCell(net, nn.AdamWeightDecay(net.trainable_params(), 0.01))
    return step, _bert_inputs(rng)


def bert_train_loss_scale(rng):
    """BertTrainOneStepWithLossScaleCell: dynamic loss scale, FloatStatus overflow check."""
    BP = load("bert", "src.bert_for_pre_training")
    net = BP.BertNetworkWithLoss(_bert_config(), True)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 10, scale_factor=2,
                                           scale_window=1000)
    step = BP.BertTrainOneStepWithLossScaleCell(
        net, nn.AdamWeightDecay(net.trainable_params(), learning_rate=0.01),
        scale_update_cell=update)
    return step, _bert_inputs(rng)


def bert_finetune(rng):
    """run_classifier.py: BertCLS under BertFinetuneCell."""
    BF = load("bert", "src.bert_for_finetune")
    net = BF.BertCLS(_bert_config(), True, num_labels=3, dropout_prob=0.0)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 10, scale_factor=2,
                                           scale_window=1000)
    step = BF.BertFinetuneCell(net, nn.AdamWeightDecay(net.trainable_params(), 0.01),
                               scale_update_cell=update)
    ids, mask, types_, *_ = _bert_inputs(rng)
    return step, (ids, mask, types_, Tensor(np.array([0, 2], np.int32)))


def _transformer_config():
    TM = load("transformer", "src.transformer_model")
    return TM.TransformerConfig(batch_size=2, seq_length=8, vocab_size=32, hidden_size=16,
                                num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=32, hidden_dropout_prob=0.0,
                                attention_probs_dropout_prob=0.0, max_position_embeddings=16,
                                beam_width=2, max_decode_length=4)


def _transformer_inputs(rng):
    mask = np.ones((2, 8), np.int32)
    mask[1, 5:] = 0
    ids = [Tensor(rng.integers(1, 32, (2, 8)).astype(np.int32)) for _ in range(3)]
    return ids[0], Tensor(mask), ids[1], Tensor(mask), ids[2], Tensor(mask)


def transformer_infer(rng):
    """The Transformer's beam search. Its weights are np.random's draws (weight_init.py),
    which set_seed fixes; the seed's 0 makes a search that emits one id throughout."""
    np.random.seed(1)
    net = load("transformer", "src.transformer_model").TransformerModel(
        _transformer_config(), False)
    return net, _transformer_inputs(rng)[:2]


def transformer_train(rng):
    TT = load("transformer", "src.transformer_for_train")
    net = TT.TransformerNetworkWithLoss(_transformer_config(), True)
    step = TT.TransformerTrainOneStepCell(net, nn.Adam(net.trainable_params(), 0.01))
    return step, _transformer_inputs(rng)


def transformer_train_loss_scale(rng):
    TT = load("transformer", "src.transformer_for_train")
    net = TT.TransformerNetworkWithLoss(_transformer_config(), True)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 10, scale_factor=2,
                                           scale_window=1000)
    step = TT.TransformerTrainOneStepWithLossScaleCell(
        net, nn.Adam(net.trainable_params(), 0.01), scale_update_cell=update)
    return step, _transformer_inputs(rng)


def _deeplab_parts(rng):
    """DeepLabV3's ResNet trunk (one block a stage) and its ASPP head; the whole network's
    construct calls ``P.ResizeBilinear``, which MindSpore 2.x no longer has."""
    D = load("deeplabv3", "src.nets.deeplab_v3.deeplab_v3")
    return D.Resnet(D.Bottleneck, [1, 1, 1, 1], 16), D.ASPP([1, 6, 12, 18], "eval", 64, 5)



def _swin():
    """SwinTransformer as its config (swin_tiny_patch4_window7_224.yaml) builds it, at 16
    pixels: 2-pixel patches, embed dim 8, two stages of two blocks and 4-pixel windows, so
    the first stage's second block shifts its windows (Roll and the attention mask) and the
    second stage's window covers its whole 4x4 map. ``src.args`` (the training script's
    parsed yaml) is read for the activation's name only."""
    S = load("swin", "src.models.swintransformer.swin_transformer",
             stubs={"src.args": {"args": types.SimpleNamespace(nonlinearity="GELU")}})
    return S.SwinTransformer(image_size=16, patch_size=2, in_chans=3, num_classes=5,
                             embed_dim=8, depths=[2, 2], num_heads=[2, 4], window_size=4,
                             mlp_ratio=2.0, qkv_bias=True, qk_scale=None, drop_rate=0.0,
                             attn_drop_rate=0.0, drop_path_rate=0.0, ape=False,
                             patch_norm=True)


def swin_train(rng):
    """Swin's training step is not vendored (its src/trainers and src/tools): the network
    under nn's cross entropy, AdamWeightDecay and TrainOneStepCell."""
    net = _swin()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.AdamWeightDecay(net.trainable_params(), 1e-3,
                                                  weight_decay=0.05))
    return step, (_images(rng, 2, 3, 16, 16), _labels(rng, 2, 5))


def _cyclegan_args(**changes):
    """CycleGAN's src/utils/args.py defaults (instance norm, reflect padding, lsgan,
    lambdas 10/10/0.5), small: 4 filters, two residual blocks, no dropout."""
    args = dict(model="ResNet", init_type="normal", init_gain=0.02, image_size=32, in_planes=3,
                ngf=4, gl_num=2, ndf=4, dl_num=3, slope=0.2, norm_mode="instance",
                lambda_A=10.0, lambda_B=10.0, lambda_idt=0.5, gan_mode="lsgan",
                pad_mode="REFLECT", need_dropout=False, beta1=0.5)
    args.update(changes)
    return types.SimpleNamespace(**args)


def _cyclegan(**changes):
    """train.py's cells, in its order: the generators and critics, the Generator pair,
    both loss cells, then the optimizers (Adam, beta1 0.5) and the two train cells, so
    the Parameters carry the names the loss cells give them before Adam copies them."""
    C, L = load("cyclegan", "src.models.cycle_gan", "src.models.losses")
    args = _cyclegan_args(**changes)
    G_A, G_B = C.get_generator(args), C.get_generator(args)
    D_A, D_B = C.get_discriminator(args), C.get_discriminator(args)
    generator = C.Generator(G_A, G_B, args.lambda_idt > 0)
    loss_D = L.DiscriminatorLoss(args, D_A, D_B)
    loss_G = L.GeneratorLoss(args, generator, D_A, D_B)
    opt_G = nn.Adam(generator.trainable_params(), 2e-4, beta1=args.beta1)
    opt_D = nn.Adam(D_A.trainable_params() + D_B.trainable_params(), 2e-4, beta1=args.beta1)
    return C.TrainOneStepG(loss_G, generator, opt_G), C.TrainOneStepD(loss_D, opt_D)


def cyclegan_train_g(rng):
    """The generator step: GeneratorLoss (both generators, both critics' lsgan, cycle
    and identity L1) under TrainOneStepG; it returns the fakes, then the loss."""
    return _cyclegan()[0], (_images(rng, 1, 3, 32, 32), _images(rng, 1, 3, 32, 32))


def cyclegan_train_d(rng):
    """The critics' step: DiscriminatorLoss under TrainOneStepD, on real images and
    (here random) fakes."""
    return _cyclegan()[1], tuple(_images(rng, 1, 3, 32, 32) for _ in range(4))


def _cyclegan_generator(model, gl_num, size):
    C = load("cyclegan", "src.models.cycle_gan")
    return C.get_generator(_cyclegan_args(model=model, gl_num=gl_num, image_size=size))


FORWARD = {
    "resnet18": lambda rng: (_resnet("resnet18"), (_images(rng, 2, 3, 32, 32),)),
    "resnet50": lambda rng: (_resnet("resnet50"), (_images(rng, 2, 3, 32, 32),)),
    "se_resnet50": lambda rng: (_resnet("se_resnet50"), (_images(rng, 2, 3, 32, 32),)),
    "vgg16": lambda rng: (_vgg(), (_images(rng, 2, 3, 32, 32),)),
    "mobilenet_v1": lambda rng: (load("mobilenetv1", "src.mobilenet_v1").mobilenet_v1(5),
                                 (_images(rng, 2, 3, 32, 32),)),
    "mobilenet_v2": lambda rng: (_mobilenet_v2(), (_images(rng, 2, 3, 32, 32),)),
    "mobilenet_v3": lambda rng: (_mobilenet_v3(), (_images(rng, 2, 3, 32, 32),)),
    "shufflenet_v1": lambda rng: (_shufflenet(1), (_images(rng, 2, 3, 32, 32),)),
    "shufflenet_v2": lambda rng: (_shufflenet(2), (_images(rng, 2, 3, 32, 32),)),
    "inception_v3": lambda rng: (_inception_v3(), (_images(rng, 1, 3, 75, 75),)),
    "inception_v4": lambda rng: (load("inceptionv4", "src.inceptionv4").Inceptionv4(
        classes=5, is_train=False), (_images(rng, 1, 3, 75, 75),)),
    "xception": lambda rng: (_xception(), (_images(rng, 1, 3, 71, 71),)),
    "efficientnet": lambda rng: (_efficientnet(), (_images(rng, 2, 3, 32, 32),)),
    "vit": lambda rng: (_vit(), (_images(rng, 2, 3, 32, 32),)),
    "crnn": lambda rng: (load("crnn", "src.crnn").CRNNV2(_crnn_config()),
                         (_images(rng, 2, 3, 32, 32),)),
    "deeplabv3_resnet": lambda rng: (_deeplab_parts(rng)[0], (_images(rng, 2, 3, 32, 32),)),
    "deeplabv3_aspp": lambda rng: (_deeplab_parts(rng)[1], (_images(rng, 2, 64, 4, 4),)),
    "edsr": lambda rng: (_edsr(), (Tensor((rng.random((1, 3, 8, 8)) * 255).astype(F32)),)),
    "pointnet": lambda rng: (_pointnet(), (_images(rng, 2, 3, 32),)),
    "dcgan_generator": lambda rng: (_dcgan()[0], (_images(rng, 2, 8, 1, 1),)),
    "dcgan_discriminator": lambda rng: (_dcgan()[1], (_images(rng, 2, 3, 16, 16),)),
    "lstm_sentiment": lambda rng: (_sentiment_lstm(rng),
                                   (Tensor(rng.integers(0, 20, (2, 500)).astype(np.int32)),)),
    "bert_model": lambda rng: (load("bert", "src.bert_model").BertModel(_bert_config(), False),
                               _bert_inputs(rng)[:3]),
    "transformer_infer": transformer_infer,
    "swin": lambda rng: (_swin(), (_images(rng, 2, 3, 16, 16),)),
    "cyclegan_resnet_generator": lambda rng: (_cyclegan_generator("ResNet", 2, 16),
                                              (_images(rng, 1, 3, 16, 16),)),
    "cyclegan_depth_resnet_generator": lambda rng: (_cyclegan_generator("DepthResNet", 6, 16),
                                                    (_images(rng, 1, 3, 16, 16),)),
    "cyclegan_unet_generator": lambda rng: (_cyclegan_generator("UNet", 5, 64),
                                            (_images(rng, 1, 3, 64, 64),)),
    "cyclegan_discriminator": lambda rng: (load("cyclegan", "src.models.cycle_gan")
                                           .get_discriminator(_cyclegan_args()),
                                           (_images(rng, 1, 3, 32, 32),)),
}

TRAIN = {
    "resnet18": resnet_train,
    "mobilenet_v1": mobilenet_v1_train,
    "mobilenet_v2": mobilenet_v2_train,
    "shufflenet_v2": shufflenet_v2_train,
    "efficientnet": efficientnet_train,
    "vit": vit_train,
    "crnn": crnn_train,
    "edsr": edsr_train,
    "pointnet": pointnet_train,
    "wgan_discriminator": wgan_train_d,
    "wgan_generator": wgan_train_g,
    "bert_pretrain": bert_train,
    "bert_pretrain_loss_scale": bert_train_loss_scale,
    "bert_finetune": bert_finetune,
    "transformer": transformer_train,
    "transformer_loss_scale": transformer_train_loss_scale,
    "swin": swin_train,
    "cyclegan_generator": cyclegan_train_g,
    "cyclegan_discriminator": cyclegan_train_d,
}

#: Where a training cell's tuple holds its loss, when not first (TrainOneStepG returns the
#: fakes first, then the loss).
LOSS_AT = {"cyclegan_generator": 2}

__all__ = ["FORWARD", "LOSS_AT", "TRAIN", "ms"]
